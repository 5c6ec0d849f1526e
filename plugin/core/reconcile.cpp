#include "plugin/core/reconcile.hpp"

#include <algorithm>
#include <exception>

#include "common/text_format.hpp"
#include "common/update_step/outcome.hpp"
#include "plugin/core/eligibility.hpp"
#include "plugin/core/json_equal.hpp"
#include "plugin/core/plan.hpp"
#include "plugin/core/plan_update.hpp"
#include "plugin/core/status.hpp"
#include "plugin/core/status_fold.hpp"

namespace liveupdate {

using common::LogLevel;

constexpr const char *kObjectNotFound = "ObjectNotFound";

ReconcileSession::ReconcileSession(std::string name, SessionClaim claim, common::MicroTime start_time, bool batched)
    : name_(std::move(name)),
      claim_(std::move(claim)),
      state_(&claim_.state()),
      start_time_(start_time),
      batched_(batched) {}

void ReconcileSession::log(common::LogLevel level, std::string text) { log_.push_back({level, std::move(text)}); }

Step ReconcileSession::done_step(const api::LiveUpdateStatus &status, bool changed) {
    done_ = true;
    if (commit_) state_->status = status;
    Step step;
    step.log = std::move(log_);
    step.events = std::move(events_);
    step.status = status;
    step.status_changed = changed;
    return step;
}

Step ReconcileSession::begin(const api::ObjectPtr &lu, const ObjectLookup &lookup, common::MicroTime now) {
    now_ = now;
    if (!lu) {
        state_->monitor.reset();
        state_->status.reset();
        done_ = true;
        return Step{};
    }
    lu_object_ = lu;
    lu_ = &std::get<api::LiveUpdate>(lu->body);
    manifest_ = lu->meta.annotation(api::kAnnotationManifest);
    if (!state_->status) state_->status = lu_->status;
    previous_ = *state_->status;

    if (!lu->meta.annotation(api::kAnnotationManagedBy).empty()) return done_step(previous_, false);  // D03

    if (auto msg = invalid_selector_message(lu_->spec))
        return handle_failure(create_failed_state(previous_, "Invalid", *msg, now_));

    const auto &spec_raw = lu->raw_field("spec");
    if (!state_->monitor || !json_equal(state_->monitor->spec_raw, spec_raw)) {
        state_->monitor.emplace();
        state_->monitor->spec_raw = spec_raw;
    }
    Monitor &monitor = *state_->monitor;
    monitor.manifest = manifest_;

    bool changed = false;
    try {
        changed |= refresh_sources(monitor, lu_->spec, lookup);
        changed |= refresh_kubernetes(monitor, lu_->spec, lookup);
        changed |= refresh_docker_compose(monitor, lu_->spec, lookup);
        changed |= refresh_local_container(monitor, lu_->spec, lookup);
    } catch (const ObjectNotFound &e) {
        return handle_failure(create_failed_state(previous_, kObjectNotFound, e.what(), now_));
    }
    changed |= refresh_trigger_queue(monitor, lookup);
    if (changed) monitor.has_changes_to_sync = true;
    if (lu_->spec.initial_sync && monitor.needs_initial_sync()) monitor.has_changes_to_sync = true;

    if (!monitor.has_changes_to_sync) return done_step(previous_, false);  // F05
    return start_sync();
}

Step ReconcileSession::handle_failure(api::LiveUpdateStateFailed failed) {
    if (previous_.failed && *previous_.failed == failed) return done_step(previous_, false);
    say_failure(failed);
    api::LiveUpdateStatus next = previous_;
    next.failed = std::move(failed);
    return done_step(next, true);
}

Step ReconcileSession::start_sync() {
    Monitor &monitor = *state_->monitor;
    const auto &spec = lu_->spec;
    auto resource = resource_of(monitor, spec);
    if (auto *msg = std::get_if<std::string>(&resource)) {
        status_.failed = create_failed_state(previous_, "Invalid", *msg, now_);
        return finish_sync();
    }
    resource_ = std::move(std::get<SelectedResource>(resource));

    // C04: in manual mode only a queued manifest is updated.
    const bool manual = lu_object_->meta.annotation(api::kAnnotationUpdateMode) == api::kUpdateModeManual;
    const bool in_queue = monitor.last_trigger_queue && !manifest_.empty() &&
                          api::in_trigger_queue(*monitor.last_trigger_queue, manifest_);
    waiting_on_trigger_ = manual && !in_queue;

    garbage_collect_file_changes(monitor, spec.sources, resource_.best_start_time);
    forget_unselected(monitor, resource_.containers);  // C08
    if (failure_holds_all()) return finish_sync();
    return advance_batch();
}

// C07: a recorded failure stops updates until a newer build clears it, or
// (beyond Tilt) the container starts again: the failure was its last run's.
bool ReconcileSession::failure_holds_all() {
    Monitor &monitor = *state_->monitor;
    for (const auto &sc : resource_.containers) {
        const auto it = monitor.containers.find({sc.ref.id, sc.ref.pod, sc.ref.namespace_name});
        if (it == monitor.containers.end() || !it->second.failure) continue;
        ContainerTrack &track = it->second;
        if (auto cleared = failure_cleared(monitor, lu_->spec, track, sc, start_time_)) {
            log(LogLevel::info, std::move(*cleared));
            track.failure.reset();
            continue;
        }
        if (auto skipped = skipped_changes_line(monitor, track, sc, start_time_))
            log(LogLevel::warn, std::move(*skipped));
        if (!resource_.failure_holds_all) continue;  // C10: held alone, in its visit
        const ContainerFailure &failure = *track.failure;
        status_.failed = create_failed_state(
            previous_, failure.reason,
            holding_all_message(failure.reason, failure.message, it->first, resource_.containers), now_);
        return true;
    }
    return false;
}

// Visits the containers up to where the visits would stop without an
// outcome, and hands out their updates at once: every one (stepVersion 2) or
// the first (stepVersion 1, a batch of one). The lines each visit wrote go out
// with the next update, so that the host can print them in the sequential
// order (its updater lines after them, the outcome's lines next).
Step ReconcileSession::advance_batch() {
    std::vector<LogLine> before = std::move(log_);
    log_.clear();
    bool has_update = false;
    while (next_container_ < resource_.containers.size() && (batched_ || !has_update)) {
        Visit v = visit(resource_.containers[next_container_++]);
        v.log = std::move(log_);
        log_.clear();
        const bool stops = v.stops(resource_.failure_holds_all);
        has_update |= v.update.has_value();
        batch_.push_back(std::move(v));
        if (stops) break;
    }
    log_ = std::move(before);
    if (!has_update) return resume_batch({}, now_);
    Step step;
    step.log = std::move(log_);
    step.events = std::move(events_);
    log_.clear();
    events_.clear();
    // The visits after the last update keep their lines: those are written when folded.
    std::size_t last_update = batch_.size();
    while (!batch_[last_update - 1].update) --last_update;
    std::vector<LogLine> lines;
    for (std::size_t i = 0; i < last_update; ++i) {
        Visit &v = batch_[i];
        lines.insert(lines.end(), v.log.begin(), v.log.end());
        v.log.clear();
        if (!v.update) continue;
        step.updates.push_back(BatchedUpdate{std::move(lines), std::move(*v.update)});
        lines.clear();
        v.update.reset();
    }
    step.stops_at_infra_failure = resource_.failure_holds_all;
    batch_pending_ = true;
    if (batched_) return step;
    // stepVersion 1's "update" step: the lines before the update are the step's.
    BatchedUpdate &only = step.updates.front();
    step.log.insert(step.log.end(), only.log.begin(), only.log.end());
    step.update = std::move(only.update);
    step.updates.clear();
    return step;
}

bool ReconcileSession::settle(const Visit &v) {
    log_.insert(log_.end(), v.log.begin(), v.log.end());
    if (v.failed) {
        status_.failed = *v.failed;
        status_.containers.clear();
        return true;
    }
    if (v.merge)
        return merge_container(v.merge->one, false, v.merge->key, v.merge->new_high_water_mark,
                               v.merge->new_low_water_mark, v.merge->already_held);
    return status_.failed.has_value();
}

// Eligibility: whether the container may get its changes, and which.
ReconcileSession::Visit ReconcileSession::visit(const SelectedContainer &sc) {
    const Monitor &monitor = *state_->monitor;
    const ContainerKey key{sc.ref.id, sc.ref.pod, sc.ref.namespace_name};
    const auto existing = monitor.containers.find(key);  // C09: by ID, so a restart in place keeps its track
    const ContainerTrack track = existing != monitor.containers.end() ? existing->second : ContainerTrack{};

    ChangedFiles changed = changes_since_sync(monitor, track, start_time_);
    const bool ended = has_ended(sc);
    // C10: still held (start_sync cleared what no longer holds it); its changes wait.
    if (!ended && track.failure) {
        if (!changed.files.empty()) any_files_to_sync_ = true;
        Visit held;
        held.merge = Merge{{}, key, changed.new_high_water_mark, changed.new_low_water_mark, true};
        held.merge->one.failed = api::LiveUpdateStateFailed{track.failure->reason, track.failure->message, {}};
        return held;
    }
    const bool initial_sync = needs_initial_sync(lu_->spec, track);
    std::vector<common::IgnoreDef> filter;
    if (initial_sync) {
        try {
            InitialSyncChanges all = initial_sync_changes(monitor, lu_->spec, start_time_, now_);
            for (auto &w : all.warnings) log(LogLevel::warn, std::move(w));
            changed = std::move(all.changed);
            filter = std::move(all.filter);
        } catch (const std::exception &e) {
            Visit failed;
            failed.failed =
                create_failed_state(previous_, "InitialSyncError",
                                    std::string("Failed to collect files for initial sync: ") + e.what(), now_);
            return failed;
        }
    }
    if (!changed.files.empty()) any_files_to_sync_ = true;
    if (ended) {  // C06
        if (terminated_pod_name_.empty()) terminated_pod_name_ = sc.ref.pod;
        return Visit{};
    }
    return visit_result(sc, {key, track, std::move(changed), initial_sync, std::move(filter)});
}

// What an eligible container's changes come to: an update, or its entry in the status.
ReconcileSession::Visit ReconcileSession::visit_result(const SelectedContainer &sc, Eligible eligible) {
    const auto &spec = lu_->spec;
    const updater::ContainerRef &c = sc.ref;
    const auto waiting = waiting_of(sc, waiting_on_trigger_);
    ChangedFiles &changed = eligible.changed;
    const auto plan =
        create_plan(spec, changed.files, eligible.initial_sync ? PlanMappings::count_only : PlanMappings::each_file);
    Visit settled;
    settled.merge = Merge{{}, eligible.key, changed.new_high_water_mark, changed.new_low_water_mark};
    api::LiveUpdateStatus &one = settled.merge->one;
    if (auto blocked = update_blocked(plan, sc)) {
        one.failed = std::move(blocked);
        return settled;
    }
    if (nothing_to_sync(plan.plan) || waiting) {
        one.containers.push_back(
            {c.name, c.id, c.pod, c.namespace_name, eligible.track.last_file_time_synced, "", waiting});
        return settled;
    }
    const std::string display = container_display_name(c.pod, c.name, c.id);
    const UpdateTarget target{name_, resource_.via, c, display};
    PlannedUpdate planned = eligible.initial_sync
                                ? plan_initial_sync(spec, target, changed.files, std::move(eligible.filter))
                                : plan_update(spec, target, plan.plan);
    log_.insert(log_.end(), planned.log.begin(), planned.log.end());
    if (!planned.update) {
        one.failed = std::move(planned.failed);
        return settled;
    }
    if (!update_event_dispatched_) {  // X05: started, before the first update
        update_event_dispatched_ = true;
        events_.push_back({"started", name_, manifest_, std::move(changed.files), ""});
    }
    Visit updating;
    updating.pending = Pending{eligible.key,
                               planned.update->container,
                               display,
                               changed.new_high_water_mark,
                               changed.new_low_water_mark,
                               eligible.track.last_file_time_synced};
    updating.update = std::move(planned.update);
    return updating;
}

bool ReconcileSession::merge_container(api::LiveUpdateStatus one, bool files_applied, const ContainerKey &key,
                                       common::MicroTime new_high_water_mark, common::MicroTime new_low_water_mark,
                                       bool already_held) {
    if (one.failed) one.failed = create_failed_state(previous_, one.failed->reason, one.failed->message, now_);
    ContainerTrack &track = state_->monitor->containers[key];
    if (one.failed) {
        if (!already_held) track.failure = recorded_failure(*one.failed, new_low_water_mark, key, resource_.containers);
        if (!resource_.failure_holds_all) {  // C10: it holds its own container alone
            HeldEntry held = held_entry(key, track.last_file_time_synced, *one.failed, resource_.containers);
            stamp_agent(held.status, track);
            status_.containers.push_back(std::move(held.status));
            held_.push_back({*one.failed, std::move(held.display_name), !already_held});
            return false;
        }
        status_.failed = one.failed;
        status_.failed->message =
            holding_all_message(one.failed->reason, one.failed->message, key, resource_.containers);
        status_.containers.clear();
        return true;
    }
    if (files_applied) track.last_file_time_synced = new_high_water_mark;
    for (auto &c : one.containers) stamp_agent(c, track);
    status_.containers.insert(status_.containers.end(), one.containers.begin(), one.containers.end());
    return false;
}

std::size_t ReconcileSession::pending_updates() const {
    return static_cast<std::size_t>(
        std::count_if(batch_.begin(), batch_.end(), [](const Visit &v) { return v.pending; }));
}

Step ReconcileSession::resume_batch(const std::vector<updater::Outcome> &outcomes, common::MicroTime now) {
    check_outcomes(outcomes, pending_updates(), resource_.failure_holds_all);
    now_ = now;
    batch_pending_ = false;
    std::vector<Visit> batch = std::move(batch_);
    batch_.clear();
    std::vector<std::vector<LogLine>> results;
    std::size_t next_outcome = 0;
    bool stop = false;
    for (Visit &v : batch) {
        if (v.pending) {
            stop = fold_outcome(*v.pending, outcomes[next_outcome++]);
            results.push_back(std::move(log_));
            log_.clear();
        } else {
            stop = settle(v);
        }
        if (stop) break;  // X04: an exec failure (X02) does not stop the next container's update
    }
    if (!batched_) {  // stepVersion 1 has no results: an outcome's lines go out with the next step
        for (const auto &lines : results) log_.insert(log_.end(), lines.begin(), lines.end());
        results.clear();
    }
    // A batch of one leaves the containers after its update to visit.
    if (!stop && next_container_ < resource_.containers.size()) return advance_batch();
    Step step = finish_sync();
    step.results = std::move(results);
    return step;
}

bool ReconcileSession::fold_outcome(const Pending &p, const updater::Outcome &outcome) {
    OutcomeResult result =
        outcome_result(UpdatedContainer{p.ref, p.display_name, p.new_high_water_mark, p.last_synced}, outcome, now_);
    if (result.line) log_.push_back(std::move(*result.line));
    ContainerTrack &track = state_->monitor->containers[p.key];
    if (outcome.agent != updater::AgentSource::unknown)
        track.agent = std::string(update_step::agent_source_text(outcome.agent));
    if (outcome.process_restarted) track.last_restart_time = now_;
    return merge_container(std::move(result.one), result.files_applied, p.key, p.new_high_water_mark,
                           p.new_low_water_mark);
}

Step ReconcileSession::finish_sync() {
    // C10: with every listed container held, the LiveUpdate fails as Tilt's does for its one container.
    if (!status_.failed && !held_.empty() && held_.size() == status_.containers.size()) {
        status_.failed = held_.front().failed;
        status_.containers.clear();
    }
    if (!status_.failed)
        for (const Held &h : held_)
            if (h.newly) log(LogLevel::warn, held_line(name_, h.display, h.failed));
    // C06: only terminated containers had files to sync.
    if (!status_.failed && !terminated_pod_name_.empty() && any_files_to_sync_ && status_.containers.empty()) {
        status_.failed = create_failed_state(
            previous_, "Terminated", "Container for live update is stopped. Pod name: " + terminated_pod_name_, now_);
    }
    const std::string *first_held = held_.empty() ? nullptr : &held_.front().failed.message;
    if (update_event_dispatched_)  // X05: after the last update
        events_.push_back({"completed", name_, manifest_, {}, completed_error(status_, first_held)});
    if (status_.failed && !(previous_.failed && *previous_.failed == *status_.failed)) say_failure(*status_.failed);
    // An abandoned reconcile was not written: the next one must compute its status again.
    if (commit_) state_->monitor->has_changes_to_sync = false;
    return done_step(status_, !(status_ == previous_));
}

// A missing object is not said: the host says what it is missing.
void ReconcileSession::say_failure(const api::LiveUpdateStateFailed &failed) {
    if (failed.reason != kObjectNotFound)
        log(LogLevel::info, "LiveUpdate " + common::go_quote(name_) + " " + failed.reason + ": " + failed.message);
}

void ReconcileSession::abandon() {
    if (!awaiting_outcome()) return;
    commit_ = false;
    const updater::Outcome gave_up =
        updater::Outcome::infra_failure("the host ended the reconcile before reporting the outcome");
    while (batch_pending_) resume_batch(std::vector<updater::Outcome>(pending_updates(), gave_up), now_);
}

}  // namespace liveupdate
