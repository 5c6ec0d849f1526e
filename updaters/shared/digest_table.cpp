#include "updaters/shared/digest_table.hpp"

#include <algorithm>
#include <climits>
#include <exception>
#include <string>

#include "common/tree_digest/tree_digest.hpp"
#include "updaters/shared/digest_entry.hpp"

namespace liveupdate::updaters {

// The agent's entry types are the ABI's digest kinds.
static_assert(static_cast<int>(agent_protocol::EntryType::file) == LU_DIGEST_FILE &&
              static_cast<int>(agent_protocol::EntryType::dir) == LU_DIGEST_DIR &&
              static_cast<int>(agent_protocol::EntryType::symlink) == LU_DIGEST_SYMLINK &&
              static_cast<int>(agent_protocol::EntryType::other) == LU_DIGEST_OTHER);

agent_protocol::Digest digest_request(lu_str container_path, const lu_digest_scope *scope) {
    namespace ap = agent_protocol;
    ap::Digest request;
    request.path = std::string(abi::to_view(container_path));
    request.max_bytes = tree_digest::kDefaultMaxBytes;
    request.max_ms = static_cast<std::uint32_t>(tree_digest::kDefaultMaxTime.count());
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
        request.hash_paths.emplace_back(abi::to_view(scope->hash_paths[i]));
    return request;
}

std::function<bool()> keep_going_of(const lu_digest_scope *scope) {
    if (scope == nullptr || scope->struct_size < sizeof(lu_digest_scope) || scope->keep_going == nullptr) return {};
    return [scope] { return scope->keep_going(scope->keep_going_ctx) != 0; };
}

int32_t digest_through_agent(const char *updater_name, const AgentDigestFn &digest, lu_str container_path,
                             const lu_digest_scope *scope, lu_digest_entry_fn each, void *each_ctx,
                             lu_message *out_error) noexcept {
    const auto fail = [updater_name, out_error](int32_t rc, std::string_view why) {
        if (out_error != nullptr)
            *out_error = abi::make_message(std::string(updater_name) + " updater: " + std::string(why));
        return rc;
    };
    if (each == nullptr) return fail(LU_ERR_INVALID_ARGUMENT, "digest needs an updater, a container and a callback");
    if (scope != nullptr && (scope->struct_size < LU_DIGEST_SCOPE_SIZE_1_11 ||
                             (scope->hash_paths == nullptr && scope->hash_path_count != 0)))
        return fail(LU_ERR_INVALID_ARGUMENT, "digest: the scope is too small or names paths without an array");
    try {
        const auto outcome = digest(
            digest_request(container_path, scope),
            [each, each_ctx](const agent_protocol::DigestEntry &e) {
                return hand_digest_entry(each, each_ctx,
                                         {e.path, static_cast<int32_t>(e.kind), e.mode, e.size, e.hash});
            },
            keep_going_of(scope));
        switch (outcome.kind) {
        case agent_client::DigestOutcome::Kind::ok: return LU_OK;
        case agent_client::DigestOutcome::Kind::stopped: return LU_ERR_STATE;
        case agent_client::DigestOutcome::Kind::not_found: return fail(LU_ERR_NOT_FOUND, outcome.message);
        case agent_client::DigestOutcome::Kind::unavailable: return fail(LU_ERR_UNSUPPORTED, outcome.message);
        case agent_client::DigestOutcome::Kind::failed: break;
        }
        return fail(LU_ERR_INTERNAL, outcome.message);
    } catch (const std::exception &e) {
        return fail(LU_ERR_INTERNAL, e.what());
    }
}

}  // namespace liveupdate::updaters
