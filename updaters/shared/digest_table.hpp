// The ABI face of liveupdate.digest/1 (liveupdate/ext/digest.h) for an
// updater that digests its containers through lu-agent: the agent's request
// for the host's scope, the outcome as the ABI's return code, and the table.
#pragma once

#include <cstdint>
#include <functional>
#include <string_view>

#include "common/agent_client/agent_driver.hpp"
#include "liveupdate/ext/digest.h"
#include "liveupdate/updater.hpp"

namespace liveupdate::updaters {

// The agent's request for a scope; scope NULL: every file's content, within
// the default budget.
agent_protocol::Digest digest_request(lu_str container_path, const lu_digest_scope *scope);

// The host's keep_going [since 1.12]; empty when its scope is older or has none.
std::function<bool()> keep_going_of(const lu_digest_scope *scope);

// Takes an agent digest of the container (the plugin's digest) and returns its outcome.
using AgentDigestFn = std::function<agent_client::DigestOutcome(const agent_protocol::Digest &request,
                                                                const agent_client::DigestEntryFn &each,
                                                                const std::function<bool()> &keep_going)>;

// lu_digest_extension.digest_scoped through `digest`, updater_name leading its messages.
int32_t digest_through_agent(const char *updater_name, const AgentDigestFn &digest, lu_str container_path,
                             const lu_digest_scope *scope, lu_digest_entry_fn each, void *each_ctx,
                             lu_message *out_error) noexcept;

// The digest extension's table of an updater whose Plugin digests with
// digest(container, request, each, log, keep_going) and counts its sessions
// with reconnect_count() and session_count(); kName leads its messages.
template <class Plugin, const char *kName>
struct DigestTable {
    static int32_t digest_scoped(lu_updater *updater, const lu_container_ref *container, lu_str container_path,
                                 const lu_digest_scope *scope, lu_digest_entry_fn each, void *each_ctx, lu_log_fn log,
                                 void *log_ctx, lu_message *out_error) noexcept {
        if (updater == nullptr || container == nullptr) {
            if (out_error != nullptr)
                *out_error = abi::make_message(std::string(kName) +
                                               " updater: digest needs an updater, a container and a callback");
            return LU_ERR_INVALID_ARGUMENT;
        }
        auto &plugin = updater::instance<Plugin>(updater);
        const updater::UpdateLog digest_log(log, log_ctx);
        return digest_through_agent(
            kName,
            [&](const agent_protocol::Digest &request, const agent_client::DigestEntryFn &on_entry,
                const std::function<bool()> &keep_going) {
                return plugin.digest(updater::to_container_ref(*container), request, on_entry, digest_log, keep_going);
            },
            container_path, scope, each, each_ctx, out_error);
    }
    static int32_t digest(lu_updater *updater, const lu_container_ref *container, lu_str container_path,
                          lu_digest_entry_fn each, void *each_ctx, lu_log_fn log, void *log_ctx,
                          lu_message *out_error) noexcept {
        return digest_scoped(updater, container, container_path, nullptr, each, each_ctx, log, log_ctx, out_error);
    }
    static uint64_t reconnect_count(lu_updater *updater) noexcept {
        return updater == nullptr ? 0 : updater::instance<Plugin>(updater).reconnect_count();
    }
    static uint64_t session_count(lu_updater *updater) noexcept {
        return updater == nullptr ? 0 : updater::instance<Plugin>(updater).session_count();
    }
    static constexpr lu_digest_extension table{sizeof(lu_digest_extension), digest, reconnect_count, digest_scoped,
                                               session_count};
};

}  // namespace liveupdate::updaters
