// The C ABI face of the docker updater (through liveupdate/updater.hpp).
#include <string_view>

#include "liveupdate/ext/digest.h"
#include "liveupdate/updater.hpp"
#include "updaters/docker/docker_updater.hpp"
#include "updaters/shared/digest_entry.hpp"

namespace {

namespace ac = liveupdate::agent_client;
namespace dk = liveupdate::docker;
namespace lu = liveupdate::updater;

// The agent's entry types are the ABI's digest kinds.
static_assert(static_cast<int>(liveupdate::agent_protocol::EntryType::file) == LU_DIGEST_FILE &&
              static_cast<int>(liveupdate::agent_protocol::EntryType::dir) == LU_DIGEST_DIR &&
              static_cast<int>(liveupdate::agent_protocol::EntryType::symlink) == LU_DIGEST_SYMLINK &&
              static_cast<int>(liveupdate::agent_protocol::EntryType::other) == LU_DIGEST_OTHER);

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
    ac::DigestOutcome digest(const lu::ContainerRef &container, const std::string &path, const ac::DigestEntryFn &each,
                             const lu::UpdateLog &digest_log) {
        return updater_.digest(container, path, each, digest_log ? digest_log : host_.update_log());
    }

    std::uint64_t reconnect_count() const noexcept { return updater_.reconnect_count(); }

private:
    dk::DockerUpdater updater_;
    lu::Host host_;
};

int32_t digest(lu_updater *updater, const lu_container_ref *container, lu_str container_path, lu_digest_entry_fn each,
               void *each_ctx, lu_log_fn log, void *log_ctx, lu_message *out_error) noexcept {
    const auto fail = [out_error](int32_t rc, std::string_view why) {
        if (out_error != nullptr) *out_error = liveupdate::abi::make_message("docker updater: " + std::string(why));
        return rc;
    };
    if (updater == nullptr || container == nullptr || each == nullptr)
        return fail(LU_ERR_INVALID_ARGUMENT, "digest needs an updater, a container and a callback");
    try {
        const auto outcome = lu::instance<DockerPlugin>(updater).digest(
            lu::to_container_ref(*container), std::string(liveupdate::abi::to_view(container_path)),
            [each, each_ctx](const liveupdate::agent_protocol::DigestEntry &e) {
                return liveupdate::updaters::hand_digest_entry(
                    each, each_ctx, {e.path, static_cast<int32_t>(e.kind), e.mode, e.size, e.hash});
            },
            lu::UpdateLog(log, log_ctx));
        switch (outcome.kind) {
        case ac::DigestOutcome::Kind::ok: return LU_OK;
        case ac::DigestOutcome::Kind::stopped: return LU_ERR_STATE;
        case ac::DigestOutcome::Kind::not_found: return fail(LU_ERR_NOT_FOUND, outcome.message);
        case ac::DigestOutcome::Kind::unavailable: return fail(LU_ERR_UNSUPPORTED, outcome.message);
        case ac::DigestOutcome::Kind::failed: break;
        }
        return fail(LU_ERR_INTERNAL, outcome.message);
    } catch (const std::exception &e) {
        return fail(LU_ERR_INTERNAL, e.what());
    }
}

uint64_t reconnect_count(lu_updater *updater) noexcept {
    return updater == nullptr ? 0 : lu::instance<DockerPlugin>(updater).reconnect_count();
}

constexpr lu_digest_extension kDigest{sizeof(lu_digest_extension), digest, reconnect_count};

const void *DockerPlugin::extension(std::string_view id) const {
    return id == LU_DIGEST_EXTENSION_ID ? &kDigest : nullptr;
}

}  // namespace

extern "C" LU_EXPORT const lu_updater_api *lu_updater_plugin_entry(uint32_t abi_version,
                                                                   const lu_plugin_info **out_info) {
    return lu::entry<DockerPlugin>(abi_version, out_info);
}
