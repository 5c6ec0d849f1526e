// `lu-host trigger` and the trigger queue it fills (host/up/trigger_queue.hpp):
// a manifest is queued, its LiveUpdates marked due, and the manifest taken
// off the queue once each of them was reconciled after the queue reached the
// plugin. Thread-safe: one read-modify-write of the queue at a time. AdmitFn
// may throw std::runtime_error: the queue could not be written where it lives.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include <boost/json.hpp>

#include "common/mutex.hpp"
#include "host/core/object_store.hpp"
#include "host/up/declarations.hpp"
#include "host/up/trigger_queue.hpp"
#include "host/up/up_log.hpp"

namespace liveupdate::host::up {

class ManualTriggers {
public:
    // Admits an object into the engine and the store; returns the LiveUpdates it makes due.
    using AdmitFn = std::function<std::vector<std::string>(const boost::json::object &, const std::string &origin)>;
    using MarkDueFn = std::function<void(const std::vector<std::string> &live_updates)>;

    ManualTriggers(const JsonObjectStore &store, const Declarations &declarations, AdmitFn admit, MarkDueFn mark_due,
                   UpLog &log);

    // {"names": [...]} → {"triggered": [...]} or {"error"}; every name is checked before anything is queued.
    boost::json::value trigger(const boost::json::value *names);
    // Read before a reconcile begins.
    std::uint64_t generation() const { return tracker_.generation(); }
    // After a reconcile of live_update that began at `began`.
    void reconciled(const std::string &live_update, std::uint64_t began);
    // The LiveUpdate is gone.
    void forget(const std::string &live_update);
    // A queue a source declares (the cluster's ConfigMap, edited with kubectl),
    // once it is in the engine and before its LiveUpdates are marked due: its
    // manifests not queued here are served and taken off as if triggered here.
    void queue_declared(const boost::json::object &queue);

private:
    void take_off(const std::vector<std::string> &manifests);
    std::vector<std::string> live_updates_of(const std::string &manifest) const;

    const JsonObjectStore &store_;
    const Declarations &declarations_;
    AdmitFn admit_;
    MarkDueFn mark_due_;
    UpLog &log_;
    TriggerTracker tracker_;
    common::Mutex queue_mutex_;  // one read-modify-write of the trigger queue at a time
};

}  // namespace liveupdate::host::up
