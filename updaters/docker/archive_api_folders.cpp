#include "updaters/docker/archive_api_folders.hpp"

#include <map>

#include "common/agent_protocol/messages.hpp"

namespace liveupdate::docker {

std::set<std::string> folders_to_make_explicit(const std::vector<updaters::PlannedPath> &entries,
                                               const std::vector<std::string> &sync_roots,
                                               const ContainerPathKindFn &kind_of) {
    std::set<std::string> folders;
    std::map<std::string, ContainerPathKind> known;
    for (const auto &entry : entries) {
        if (entry.change == updaters::PathChange::remove) continue;
        const std::string &path = entry.path;
        const std::string root = agent_protocol::root_for(path, sync_roots);
        const std::size_t below = root == "/" ? 0 : root.size();
        for (auto slash = path.find('/', below + 1); slash != std::string::npos; slash = path.find('/', slash + 1)) {
            const std::string parent = path.substr(0, slash);
            auto it = known.find(parent);
            if (it == known.end()) it = known.emplace(parent, kind_of(parent)).first;
            if (it->second == ContainerPathKind::folder) continue;
            if (it->second == ContainerPathKind::other) folders.insert(parent.substr(1));
            break;
        }
    }
    return folders;
}

}  // namespace liveupdate::docker
