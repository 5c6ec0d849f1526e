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

// lu_sync_back_extension.watch, the updater's name leading its messages.
int32_t start_change_watch(const char *updater_name, const OpenWatchSession &open, const lu_container_ref *container,
                           lu_str root, const lu_str *patterns, uint64_t pattern_count, uint64_t max_file_bytes,
                           lu_container_changes_fn each, void *each_ctx, lu_log_fn log, void *log_ctx,
                           lu_change_watch **out_watch, lu_message *out_error) noexcept;

// lu_sync_back_extension.stop.
void stop_change_watch(lu_change_watch *watch) noexcept;

}  // namespace liveupdate::updaters
