// After `lu-host verify --fix`: each container verified equal to the sources
// is told to the plugin (liveupdate/ext/sync_targets.h container_repaired),
// which clears a failure its last update left, so that a repaired container
// is no longer skipped and the LiveUpdate leaves Failed (V04, issue 19).
#pragma once

#include "host/core/log.hpp"
#include "host/core/plugin_slot.hpp"
#include "host/verify/verifier.hpp"

namespace liveupdate::host::verify {

// True when a failure was cleared: the LiveUpdate is to be reconciled. What
// stands in the way (a plugin without the member, a reconcile in progress) is
// logged to log, never thrown.
bool clear_repaired_failures(const LiveUpdateReport &report, const host::PluginSlot &plugin_slot,
                             const host::LogSinkFn &log);

}  // namespace liveupdate::host::verify
