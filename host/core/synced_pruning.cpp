#include "host/core/synced_pruning.hpp"

#include <filesystem>
#include <system_error>

namespace liveupdate::host {

bool synced_container_gone(const SyncedKey &key, const std::string &docker_via, const DockerPresenceFn &docker) {
    if (key.container.starts_with("root:")) {
        std::error_code ec;
        const bool exists = std::filesystem::exists(key.container.substr(5), ec);
        return !exists && !ec;  // an error (a permission) cannot tell
    }
    if (key.container.starts_with("id:") && !docker_via.empty() && key.via == docker_via && docker)
        return docker(key.container.substr(3)) == ContainerPresence::gone;
    return false;
}

void prune_gone_synced_journals(SyncedJournals &journals, const std::string &docker_via, const DockerPresenceFn &docker,
                                const std::function<void(const SyncedKey &)> &removed) {
    for (const auto &key :
         journals.prune([&](const SyncedKey &k) { return synced_container_gone(k, docker_via, docker); }))
        removed(key);
}

}  // namespace liveupdate::host
