// One reconcile of one LiveUpdate as a step machine (Tilt's Reconcile,
// maybeSync and applyInternal). It hands out container updates in batches and
// folds the outcomes the host reports in container order, stopping at the
// first infrastructure failure where it holds every container (C07; a Compose
// replica's holds that one alone, C10). Batched (stepVersion 2): one batch of
// every container's update of the change. Sequential (stepVersion 1): batches
// of one update, so statuses, events and log lines come out the same.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "plugin/core/api/api_object.hpp"
#include "plugin/core/containers.hpp"
#include "plugin/core/dependencies.hpp"
#include "plugin/core/live_update_state.hpp"
#include "plugin/core/monitor.hpp"
#include "plugin/core/step.hpp"

namespace liveupdate {

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
        common::MicroTime last_synced;  // the track's mark when it was visited
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

    // A container that may get its changes: these (eligibility.hpp decides).
    struct Eligible {
        ContainerKey key;
        ContainerTrack track;
        ChangedFiles changed;
        bool initial_sync = false;
        std::vector<common::IgnoreDef> filter;  // initial sync's
    };

    Step handle_failure(api::LiveUpdateStateFailed failed);
    Step start_sync();
    // C07: clears the failures that no longer hold their containers; true when
    // one holds every container (it is then the status's failure).
    bool failure_holds_all();
    Step advance_batch();
    // The updates of the batch handed out: the outcomes it waits for.
    std::size_t pending_updates() const;
    // Handles one container: whether it may get its changes, and which.
    Visit visit(const SelectedContainer &sc);
    // What an eligible container's changes come to: an update, or its status entry.
    Visit visit_result(const SelectedContainer &sc, Eligible eligible);
    // Applies a visit without update; returns true when the visit must stop.
    bool settle(const Visit &visit);
    // Merges the outcome of a pending update; returns true when the visit must stop.
    bool fold_outcome(const Pending &p, const updater::Outcome &outcome);
    // Merges one container's result; returns true when the visit must stop.
    bool merge_container(api::LiveUpdateStatus one, bool files_applied, const ContainerKey &key,
                         common::MicroTime new_high_water_mark, common::MicroTime new_low_water_mark,
                         bool already_held = false);
    Step finish_sync();
    // Says a failure of the LiveUpdate, new in this reconcile.
    void say_failure(const api::LiveUpdateStateFailed &failed);
    Step done_step(const api::LiveUpdateStatus &status, bool changed);
    void log(common::LogLevel level, std::string text);

    std::string name_;
    SessionClaim claim_;
    LiveUpdateState *state_;
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
