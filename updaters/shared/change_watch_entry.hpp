// The ABI face of sync back's watch (liveupdate/ext/sync_back.h) for an
// updater that reaches its containers through lu-agent: a session of the
// container's own, the agent watching, its batches handed to the host.
#pragma once

#include <functional>
#include <memory>
#include <stdexcept>
#include <string>

#include "common/agent_client/agent_session.hpp"
#include "liveupdate/ext/sync_back.h"
#include "liveupdate/updater.hpp"

namespace liveupdate::updaters {

// The container cannot be watched (the agent cannot run there): one-way.
class WatchUnsupported : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// A new agent session of the container's own. Throws WatchUnsupported, or
// anything else for a failure (the container gone).
using OpenWatchSession = std::function<std::unique_ptr<agent_client::AgentSession>(
    const updater::ContainerRef &container, const updater::UpdateLog &log)>;

// What the host last agreed on with the container (watch_from); null for
// watch, which reports only the changes after it began.
struct AgreedFiles {
    const lu_agreed_file *files = nullptr;
    uint64_t count = 0;
};

// lu_sync_back_extension.watch and .watch_from, the updater's name leading its messages.
int32_t start_change_watch(const char *updater_name, const OpenWatchSession &open, const lu_container_ref *container,
                           lu_str root, const lu_str *patterns, uint64_t pattern_count, uint64_t max_file_bytes,
                           const AgreedFiles *agreed, lu_container_changes_fn each, void *each_ctx, lu_log_fn log,
                           void *log_ctx, lu_change_watch **out_watch, lu_message *out_error) noexcept;

// lu_sync_back_extension.stop.
void stop_change_watch(lu_change_watch *watch) noexcept;

// The sync_back extension's table of an updater whose Plugin opens a
// watch's agent session with watch_session(container, log); kName leads its
// messages.
template <class Plugin, const char *kName>
struct SyncBackTable {
    static int32_t watch_agreed(lu_updater *updater, const lu_container_ref *container, lu_str root,
                                const lu_str *patterns, uint64_t pattern_count, uint64_t max_file_bytes,
                                const AgreedFiles *agreed, lu_container_changes_fn each, void *each_ctx, lu_log_fn log,
                                void *log_ctx, lu_change_watch **out_watch, lu_message *out_error) noexcept {
        if (updater == nullptr) {
            if (out_error != nullptr)
                *out_error = abi::make_message(std::string(kName) + " updater: watch needs an updater");
            return LU_ERR_INVALID_ARGUMENT;
        }
        auto &plugin = updater::instance<Plugin>(updater);
        return start_change_watch(
            kName,
            [&plugin](const updater::ContainerRef &c, const updater::UpdateLog &l) {
                return plugin.watch_session(c, l);
            },
            container, root, patterns, pattern_count, max_file_bytes, agreed, each, each_ctx, log, log_ctx, out_watch,
            out_error);
    }
    static int32_t watch(lu_updater *updater, const lu_container_ref *container, lu_str root, const lu_str *patterns,
                         uint64_t pattern_count, uint64_t max_file_bytes, lu_container_changes_fn each, void *each_ctx,
                         lu_log_fn log, void *log_ctx, lu_change_watch **out_watch, lu_message *out_error) noexcept {
        return watch_agreed(updater, container, root, patterns, pattern_count, max_file_bytes, nullptr, each, each_ctx,
                            log, log_ctx, out_watch, out_error);
    }
    static int32_t watch_from(lu_updater *updater, const lu_container_ref *container, lu_str root,
                              const lu_str *patterns, uint64_t pattern_count, uint64_t max_file_bytes,
                              const lu_agreed_file *agreed, uint64_t agreed_count, lu_container_changes_fn each,
                              void *each_ctx, lu_log_fn log, void *log_ctx, lu_change_watch **out_watch,
                              lu_message *out_error) noexcept {
        const AgreedFiles files{agreed, agreed_count};
        return watch_agreed(updater, container, root, patterns, pattern_count, max_file_bytes, &files, each, each_ctx,
                            log, log_ctx, out_watch, out_error);
    }
    static void stop(lu_updater *, lu_change_watch *watch) noexcept { stop_change_watch(watch); }
    static constexpr lu_sync_back_extension table{sizeof(lu_sync_back_extension), watch, stop, watch_from};
};

}  // namespace liveupdate::updaters
