// `lu-host trigger`: the daemon's side of Tilt's trigger queue, the ConfigMap
// "tilt-trigger-queue" whose "<i>-name" entries name the manifests (annotation
// tilt.dev/resource) that a LiveUpdate in manual mode may update for. As in
// Tilt, the host queues a manifest and takes it off once it has been served:
// here once every LiveUpdate of that manifest has been reconciled after the
// queue reached the plugin.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <boost/json.hpp>

#include "common/mutex.hpp"

namespace liveupdate::host::up {

inline constexpr const char *kTriggerQueueName = "tilt-trigger-queue";

// The manifests in a trigger queue object, in the order of their entries.
std::vector<std::string> queued_manifests(const boost::json::object &queue);

// The queue object (current, or a new one when absent) with manifest appended
// when it is not queued yet. Entries are renumbered "0-name", "1-name", ...
boost::json::object queue_with(const std::optional<boost::json::object> &current, const std::string &manifest);

// The queue object without the given manifests.
boost::json::object queue_without(const boost::json::object &current, const std::set<std::string> &manifests);

// Which LiveUpdates a queued manifest still waits for. A reconcile counts only
// when it began after the queue reached the plugin: one already running read
// the old queue (the due queue runs it again afterwards).
class TriggerTracker {
public:
    // Read before a reconcile begins.
    std::uint64_t generation() const;
    // Called once the queue holding manifest is in the engine, before its
    // LiveUpdates are marked due.
    void queued(const std::string &manifest, const std::vector<std::string> &live_updates);
    // After a reconcile of live_update that began at generation `began`: the
    // manifests that no LiveUpdate waits for any more (to take off the queue).
    std::vector<std::string> reconciled(const std::string &live_update, std::uint64_t began);
    // Whether the manifest is queued and not served yet.
    bool tracks(const std::string &manifest) const;
    // The LiveUpdate is gone: nothing waits for it.
    std::vector<std::string> forget(const std::string &live_update);

private:
    struct Waiting {
        std::uint64_t generation = 0;
        std::set<std::string> live_updates;
    };

    mutable common::Mutex mutex_;
    std::uint64_t generation_ LU_GUARDED_BY(mutex_) = 0;
    std::map<std::string, Waiting> waiting_ LU_GUARDED_BY(mutex_);  // manifest → what it waits for
};

}  // namespace liveupdate::host::up
