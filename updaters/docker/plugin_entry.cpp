// The C ABI face of the docker updater (through liveupdate/updater.hpp).
#include <algorithm>
#include <climits>
#include <cstdint>
#include <functional>
#include <string_view>

#include "common/tree_digest/tree_digest.hpp"
#include "liveupdate/ext/digest.h"
#include "liveupdate/ext/sync_back.h"
#include "liveupdate/updater.hpp"
#include "updaters/docker/docker_updater.hpp"
#include "updaters/shared/change_watch_entry.hpp"
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

// The agent's request for a scope; scope NULL: every file's content, within the default budget.
liveupdate::agent_protocol::Digest digest_request(lu_str container_path, const lu_digest_scope *scope) {
    namespace ap = liveupdate::agent_protocol;
    ap::Digest request;
    request.path = std::string(liveupdate::abi::to_view(container_path));
    request.max_bytes = liveupdate::tree_digest::kDefaultMaxBytes;
    request.max_ms = static_cast<std::uint32_t>(liveupdate::tree_digest::kDefaultMaxTime.count());
    if (scope == nullptr) return request;
    request.max_bytes = scope->max_bytes;
    request.max_ms = static_cast<std::uint32_t>(std::min<std::uint64_t>(scope->max_millis, UINT32_MAX));
    std::size_t encoded = 0;
    for (std::uint64_t i = 0; i < scope->hash_path_count; ++i) encoded += 4 + scope->hash_paths[i].size;
    // A list beyond a frame (hundreds of thousands of files): all are hashed, the budget still bounds it.
    if (encoded > ap::kMaxPayload / 2) return request;
    request.hash_all = 0;
    request.hash_paths.reserve(static_cast<std::size_t>(scope->hash_path_count));
    for (std::uint64_t i = 0; i < scope->hash_path_count; ++i)
        request.hash_paths.emplace_back(liveupdate::abi::to_view(scope->hash_paths[i]));
    return request;
}

// The host's keep_going [since 1.12]; empty when its scope is older or has none.
std::function<bool()> keep_going_of(const lu_digest_scope *scope) {
    if (scope == nullptr || scope->struct_size < sizeof(lu_digest_scope) || scope->keep_going == nullptr) return {};
    return [scope] { return scope->keep_going(scope->keep_going_ctx) != 0; };
}

int32_t digest_scoped(lu_updater *updater, const lu_container_ref *container, lu_str container_path,
                      const lu_digest_scope *scope, lu_digest_entry_fn each, void *each_ctx, lu_log_fn log,
                      void *log_ctx, lu_message *out_error) noexcept {
    const auto fail = [out_error](int32_t rc, std::string_view why) {
        if (out_error != nullptr) *out_error = liveupdate::abi::make_message("docker updater: " + std::string(why));
        return rc;
    };
    if (updater == nullptr || container == nullptr || each == nullptr)
        return fail(LU_ERR_INVALID_ARGUMENT, "digest needs an updater, a container and a callback");
    if (scope != nullptr && (scope->struct_size < LU_DIGEST_SCOPE_SIZE_1_11 ||
                             (scope->hash_paths == nullptr && scope->hash_path_count != 0)))
        return fail(LU_ERR_INVALID_ARGUMENT, "digest: the scope is too small or names paths without an array");
    try {
        const auto outcome = lu::instance<DockerPlugin>(updater).digest(
            lu::to_container_ref(*container), digest_request(container_path, scope),
            [each, each_ctx](const liveupdate::agent_protocol::DigestEntry &e) {
                return liveupdate::updaters::hand_digest_entry(
                    each, each_ctx, {e.path, static_cast<int32_t>(e.kind), e.mode, e.size, e.hash});
            },
            lu::UpdateLog(log, log_ctx), keep_going_of(scope));
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

int32_t digest(lu_updater *updater, const lu_container_ref *container, lu_str container_path, lu_digest_entry_fn each,
               void *each_ctx, lu_log_fn log, void *log_ctx, lu_message *out_error) noexcept {
    return digest_scoped(updater, container, container_path, nullptr, each, each_ctx, log, log_ctx, out_error);
}

uint64_t reconnect_count(lu_updater *updater) noexcept {
    return updater == nullptr ? 0 : lu::instance<DockerPlugin>(updater).reconnect_count();
}

uint64_t session_count(lu_updater *updater) noexcept {
    return updater == nullptr ? 0 : lu::instance<DockerPlugin>(updater).session_count();
}

constexpr lu_digest_extension kDigest{sizeof(lu_digest_extension), digest, reconnect_count, digest_scoped,
                                      session_count};

constexpr char kDockerName[] = "docker";
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
