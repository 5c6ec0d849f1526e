// One reconcile of one LiveUpdate as a step machine (Tilt's Reconcile,
// maybeSync and applyInternal). It hands out container updates in batches and
// folds the outcomes the host reports in container order, stopping at the
// first infrastructure failure where it holds every container (C07; a Compose
// replica's holds that one alone, C10). Batched (stepVersion 2): one batch of
// every container's update of the change. Sequential (stepVersion 1): batches
// of one update, so statuses, events and log lines come out the same.
#pragma once

#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "plugin/core/api/api_object.hpp"
#include "plugin/core/containers.hpp"
#include "plugin/core/dependencies.hpp"
#include "plugin/core/monitor.hpp"
#include "plugin/core/snapshot.hpp"
#include "plugin/core/step.hpp"

namespace liveupdate {

// Everything the engine keeps for one LiveUpdate name. While a reconcile
// session is open it alone touches monitor and status.
struct LiveUpdateSlot {
    explicit LiveUpdateSlot(std::string live_update) : name(std::move(live_update)) {}

    const std::string name;
    std::mutex mutex;  // guards in_session, pending and entry
    bool in_session = false;
    // Its snapshot entry, written when the last claim on it ended (a session
    // or a repair, the only changes to monitor and status): a snapshot, which
    // hot reload takes with reconciles held, copies it. Empty: write it then.
    std::string entry;
    // Restored but not decoded yet: the engine decodes it before anyone reads the rest.
    std::optional<PendingSlot> pending;
    std::optional<Monitor> monitor;
    // The status last handed out (what the host stores); seeded from the object.
    std::optional<api::LiveUpdateStatus> status;
};

// Marks a slot as being reconciled for its lifetime.
class SessionClaim {
public:
    // Returns an empty claim when a session is already open on the slot.
    static SessionClaim try_claim(std::shared_ptr<LiveUpdateSlot> slot);
    SessionClaim() = default;
    SessionClaim(SessionClaim &&other) noexcept : slot_(std::move(other.slot_)) {}
    SessionClaim &operator=(SessionClaim &&) = delete;
    SessionClaim(const SessionClaim &) = delete;
    ~SessionClaim();
    explicit operator bool() const { return slot_ != nullptr; }
    LiveUpdateSlot &slot() const { return *slot_; }

private:
    std::shared_ptr<LiveUpdateSlot> slot_;
};

class ReconcileSession {
public:
    // batched: hand out "updates" steps (stepVersion 2) rather than one update at a time.
    ReconcileSession(std::string name, SessionClaim claim, common::MicroTime start_time, bool batched = false);

    // lu: the LiveUpdate object, null when it does not exist (D04).
    Step begin(const api::ObjectPtr &lu, const ObjectLookup &lookup, common::MicroTime now);
    // Continues after the update or "updates" step that was last handed out,
    // with the outcomes in its order; where a failure holds every container (C07)
    // they may stop after the first infrastructure failure (the fold stops
    // there). Throws common::DecodeError when too few.
    Step resume_batch(const std::vector<updater::Outcome> &outcomes, common::MicroTime now);
    // Gives up a pending update as if it failed; the status is not committed.
    void abandon();

    bool awaiting_outcome() const { return batch_pending_; }
    bool done() const { return done_; }

private:
    struct Pending {
        ContainerKey key;
        updater::ContainerRef ref;
        std::string display_name;
        common::MicroTime new_high_water_mark;
        common::MicroTime new_low_water_mark;
    };

    struct Merge {
        api::LiveUpdateStatus one;
        ContainerKey key;
        common::MicroTime new_high_water_mark;
        common::MicroTime new_low_water_mark;
        bool already_held = false;  // C10: its failure is recorded from an earlier reconcile
    };
    // One container's visit: an update to run, or what the container adds to the status.
    struct Visit {
        std::optional<ContainerUpdate> update;
        std::optional<Pending> pending;                    // with update
        std::optional<Merge> merge;                        // without update
        std::optional<api::LiveUpdateStateFailed> failed;  // the whole sync fails (initial sync)
        std::vector<LogLine> log;                          // a batch's lines not yet handed out
        // holds_all: a container's failure stops the visits (C07), else it holds that container alone (C10).
        bool stops(bool holds_all) const { return !update && (failed || (holds_all && merge && merge->one.failed)); }
    };

    Step handle_failure(api::LiveUpdateStateFailed failed);
    Step start_sync();
    Step advance_batch();
    // The updates of the batch handed out: the outcomes it waits for.
    std::size_t pending_updates() const;
    // Handles one container.
    Visit visit(const SelectedContainer &sc);
    // Applies a visit without update; returns true when the visit must stop.
    bool settle(const Visit &visit);
    // Merges the outcome of a pending update; returns true when the visit must stop.
    bool fold_outcome(const Pending &p, const updater::Outcome &outcome);
    // C07: says once per batch of changes that they wait for the failure to clear.
    void report_skipped_changes(ContainerTrack &track, const std::string &display);
    bool plannable_again(const ContainerTrack &track) const;
    common::MicroTime synced_through(const ContainerTrack &track) const;
    // Merges one container's result; returns true when the visit must stop.
    bool merge_container(api::LiveUpdateStatus one, bool files_applied, const ContainerKey &key,
                         common::MicroTime new_high_water_mark, common::MicroTime new_low_water_mark,
                         bool already_held = false);
    // C11: a failure's message for the status when it holds every selected
    // container: an update failure of one of several says the others are held because of it.
    std::string holding_all(const std::string &reason, const std::string &message, const ContainerKey &key) const;
    // C10: the status entry of a container its failure holds, and the line saying so.
    void hold(const ContainerKey &key, const ContainerTrack &track, const api::LiveUpdateStateFailed &failed,
              bool already_held);
    Step finish_sync();
    Step done_step(const api::LiveUpdateStatus &status, bool changed);
    void log(common::LogLevel level, std::string text);

    std::string name_;
    SessionClaim claim_;
    LiveUpdateSlot *slot_;
    common::MicroTime start_time_;
    common::MicroTime now_;
    bool commit_ = true;
    bool done_ = false;

    api::ObjectPtr lu_object_;
    const api::LiveUpdate *lu_ = nullptr;
    std::string manifest_;
    api::LiveUpdateStatus previous_;  // the status before this reconcile

    SelectedResource resource_;
    std::size_t next_container_ = 0;
    bool waiting_on_trigger_ = false;
    api::LiveUpdateStatus status_;
    bool update_event_dispatched_ = false;
    std::string terminated_pod_name_;
    bool any_files_to_sync_ = false;
    bool batched_ = false;
    bool batch_pending_ = false;
    std::vector<Visit> batch_;  // the visits of the "updates" step handed out, in container order
    // C10: the failures holding containers of this reconcile, in container order.
    struct Held {
        api::LiveUpdateStateFailed failed;
        std::string display;
        bool newly = false;  // its failure came in this reconcile
    };
    std::vector<Held> held_;

    std::vector<LogLine> log_;
    std::vector<UpdateEvent> events_;
};

}  // namespace liveupdate
