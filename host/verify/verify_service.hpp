// The daemon's verification: `lu-host verify` on the control socket, and
// the checks it makes on its own (VerifySchedule: every `every`, and after
// an event that may have lost changes), which repair what differs.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <boost/json.hpp>

#include "common/mutex.hpp"
#include "host/core/executor.hpp"
#include "host/core/object_store.hpp"
#include "host/core/plugin_slot.hpp"
#include "host/core/synced_journal.hpp"
#include "host/core/updater_registry.hpp"
#include "host/verify/first_sight.hpp"
#include "host/verify/verifier.hpp"
#include "host/verify/verify_report_log.hpp"
#include "host/verify/verify_schedule.hpp"

namespace liveupdate::host::verify {

class VerifyService {
public:
    struct Parts {
        const JsonObjectStore &store;
        const PluginSlot &plugin_slot;
        const UpdaterRegistry &updaters;
        const Executor &executor;
        // What was synced into each container: a restarted daemon repairs those it synced into before.
        SyncedJournals &synced;
        // Why admission refused a LiveUpdate that is not in the store, if it did.
        std::function<std::optional<std::string>(const std::string &live_update)> rejection;
        // Runs fn while no reconcile of the LiveUpdate runs; a hot reload waits for it.
        std::function<void(const std::string &live_update, const std::function<void()> &fn)> exclusive;
        // Whether an update of the LiveUpdate waits for exclusive(): a check yields to it.
        std::function<bool(const std::string &live_update)> change_waiting;
        // A LiveUpdate's log, as its reconciles write it.
        std::function<LogSinkFn(const std::string &live_update)> log_of;
        // The daemon's log only, its lines tagged with a source ("": none).
        std::function<void(common::LogLevel, const std::string &source, std::string_view text)> log;
        // A LiveUpdate is to be reconciled again (a repair cleared its failure).
        std::function<void(const std::string &live_update)> mark_due;
        // When a watched file last changed: a check of its own waits for them to be quiet.
        VerifySchedule::LastChangeFn last_file_change;
    };
    struct Schedule {
        std::chrono::milliseconds every{0};  // zero: not on a timer
        bool after_loss = true;              // after lost changes: request() and updaters that reconnected
    };

    VerifyService(Parts parts, Schedule schedule);

    // {"names": [...] (none: all), "fix": bool, "deleteExtra": bool} → {"liveUpdates": [report...]}.
    boost::json::value handle(const boost::json::object &request);
    // Changes may have been lost: a check soon (when checks after a loss are on).
    void request(const std::string &reason);
    // Ends a check in progress within moments (its report says the daemon is
    // stopping); none starts afterwards.
    void stop();

private:
    std::vector<LiveUpdateReport> verify(const std::vector<std::string> &names, bool repair, bool delete_extra = false);
    // The LiveUpdates checked on their own: neither manual nor stopped for a rebuild.
    std::vector<std::string> scheduled_live_updates() const;
    // Why to verify now: a container synced into before this daemon started, not yet checked.
    std::optional<std::string> unchecked_containers();
    void on_schedule(const std::string &reason);
    // Why to verify now: an updater reconnected to a container since the last look.
    std::optional<std::string> reconnected_updaters();

    Parts p_;
    Schedule schedule_;
    Verifier verifier_;
    FirstSight first_sight_;
    common::Mutex mutex_;
    std::map<std::string, std::pair<std::weak_ptr<const Updater>, std::uint64_t>> reconnects_seen_
        LU_GUARDED_BY(mutex_);
    std::map<std::string, std::string> error_logged_
        LU_GUARDED_BY(mutex_);  // LiveUpdate → its last scheduled check's error
    LeftForSyncBackSaid left_said_;
    std::unique_ptr<VerifySchedule> timer_;
};

}  // namespace liveupdate::host::verify
