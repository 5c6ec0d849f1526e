// The C ABI face of the docker updater (through liveupdate/updater.hpp).
#include <cstdint>
#include <functional>
#include <string_view>

#include "liveupdate/ext/digest.h"
#include "liveupdate/ext/sync_back.h"
#include "liveupdate/updater.hpp"
#include "updaters/docker/docker_updater.hpp"
#include "updaters/shared/change_watch_entry.hpp"
#include "updaters/shared/digest_table.hpp"

namespace {

namespace ac = liveupdate::agent_client;
namespace dk = liveupdate::docker;
namespace lu = liveupdate::updater;

class DockerPlugin {
public:
    static constexpr const char *name = "docker";
    static constexpr const char *version = "0.1.0";

    DockerPlugin(std::string_view config_json, const lu::Host &host)
        : updater_(dk::parse_updater_config(config_json)), host_(host) {}

    lu::Outcome update(const lu::Request &request) { return updater_.update(request); }

    void prepare(const lu::ContainerRef &container) { updater_.prepare(container, host_.update_log()); }

    const void *extension(std::string_view id) const;

    // Lines of a digest asked without a log of its own go to the host's.
    ac::DigestOutcome digest(const lu::ContainerRef &container, const liveupdate::agent_protocol::Digest &request,
                             const ac::DigestEntryFn &each, const lu::UpdateLog &digest_log,
                             const std::function<bool()> &keep_going) {
        return updater_.digest(container, request, each, digest_log ? digest_log : host_.update_log(), keep_going);
    }

    std::uint64_t reconnect_count() const noexcept { return updater_.reconnect_count(); }
    std::uint64_t session_count() const noexcept { return updater_.session_count(); }

    std::unique_ptr<ac::AgentSession> watch_session(const lu::ContainerRef &container, const lu::UpdateLog &log) {
        return updater_.watch_session(container, log ? log : host_.update_log());
    }

private:
    dk::DockerUpdater updater_;
    lu::Host host_;
};

constexpr char kDockerName[] = "docker";
constexpr const lu_digest_extension &kDigest = liveupdate::updaters::DigestTable<DockerPlugin, kDockerName>::table;
constexpr const lu_sync_back_extension &kSyncBack =
    liveupdate::updaters::SyncBackTable<DockerPlugin, kDockerName>::table;

const void *DockerPlugin::extension(std::string_view id) const {
    if (id == LU_DIGEST_EXTENSION_ID) return &kDigest;
    if (id == LU_SYNC_BACK_EXTENSION_ID) return &kSyncBack;
    return nullptr;
}

}  // namespace

extern "C" LU_EXPORT const lu_updater_api *lu_updater_plugin_entry(uint32_t abi_version,
                                                                   const lu_plugin_info **out_info) {
    return lu::entry<DockerPlugin>(abi_version, out_info);
}
