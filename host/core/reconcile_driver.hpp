// Drives one reconcile of one LiveUpdate: begin → (update → execute →
// continue)* → done, or with a stepVersion 2 plugin begin → updates → execute
// them concurrently → continue → done. Writes the status into the object store only when the
// plugin says it changed (and it differs from the stored one), and collects
// the events and log lines of the reconcile. Different LiveUpdates may be
// reconciled concurrently from several threads; one LiveUpdate is reconciled
// by one thread at a time (a second caller waits, as does exclusive()).
#pragma once

#include <atomic>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include <boost/json.hpp>

#include "common/micro_time.hpp"
#include "host/core/executor.hpp"
#include "host/core/log.hpp"
#include "host/core/object_store.hpp"
#include "host/core/plugin_slot.hpp"
#include "host/core/update_fanout.hpp"

namespace liveupdate::host {

struct ReconcileResult {
    std::string live_update;
    boost::json::value status;    // null when the LiveUpdate does not exist
    bool status_changed = false;  // as the plugin said
    bool status_written = false;  // written into the store
    std::vector<boost::json::object> events;
    std::vector<StepLogLine> log;
    std::size_t updates = 0;  // container updates executed
    // "container C of pod P" ("container C" without a pod) of each update
    // that asked for a restart and succeeded.
    std::vector<std::string> restarted;
};

class ReconcileDriver {
public:
    using Clock = std::function<common::MicroTime()>;
    // live_log (optional) sees each log line as it happens, tagged with the
    // LiveUpdate's name; it must be thread-safe. Without it, lines go to the
    // host log at debug level.
    using LiveLogFn = std::function<void(const std::string &live_update, common::LogLevel, std::string_view)>;

    // parallel_updates: how many updates of one "updates" step run at once; 1
    // runs them in order, as a stepVersion 1 plugin's (replay: the record
    // updater's calls and queued outcomes stay in order).
    ReconcileDriver(const PluginSlot &plugin_slot, const Executor &executor, JsonObjectStore &store, Clock clock,
                    LiveLogFn live_log = {}, std::size_t parallel_updates = 1);

    // Throws PluginCallError when the plugin breaks the protocol; the session
    // is then ended (its updates abandoned).
    ReconcileResult reconcile(const std::string &live_update);

    // Runs fn while no reconcile of live_update runs, none starting before it
    // returns: for what must not overlap one (the daemon's verification).
    template <typename Fn>
    decltype(auto) exclusive(const std::string &live_update, Fn &&fn) {
        const std::shared_ptr<Lane> lane = lane_of(live_update);
        const std::lock_guard serial(lane->serial);
        return fn();
    }

    // Whether a reconcile of live_update waits for the lock: a verify holding
    // it yields, so that a save never waits for a whole verify.
    bool reconcile_waiting(const std::string &live_update);

private:
    // One LiveUpdate's lock, and how many reconciles wait for it.
    struct Lane {
        std::mutex serial;
        std::atomic<int> waiting{0};
    };
    std::shared_ptr<Lane> lane_of(const std::string &live_update);

    const PluginSlot &plugin_slot_;
    const Executor &executor_;
    JsonObjectStore &store_;
    Clock clock_;
    LiveLogFn live_log_;
    UpdateFanout fanout_;
    std::mutex locks_mutex_;
    std::map<std::string, std::shared_ptr<Lane>> locks_;
};

}  // namespace liveupdate::host
