#include "plugin/core/reconcile.hpp"

#include <algorithm>
#include <exception>

#include "common/json_fields.hpp"
#include "common/text_format.hpp"
#include "plugin/core/initial_sync.hpp"
#include "plugin/core/json_equal.hpp"
#include "plugin/core/plan.hpp"
#include "plugin/core/plan_update.hpp"
#include "plugin/core/status.hpp"

namespace liveupdate {

using common::LogLevel;

namespace {

constexpr const char *kObjectNotFound = "ObjectNotFound";

// True when the container runs now and started after `before` (zero: unknown, never).
bool started_since(common::MicroTime before, const api::Container &c) {
    return !before.is_zero() && c.state.running && before < c.state.running->started_at;
}

bool optional_failed_equal(const std::optional<api::LiveUpdateStateFailed> &a, const api::LiveUpdateStateFailed &b) {
    return a && *a == b;
}

std::vector<common::IgnoreDef> source_ignores(const Monitor &monitor, const api::LiveUpdateSpec &spec) {
    std::vector<common::IgnoreDef> out;
    for (const auto &s : spec.sources) {
        const auto it = monitor.sources.find(s.file_watch);
        if (it == monitor.sources.end()) continue;
        out.insert(out.end(), it->second.ignores.begin(), it->second.ignores.end());
    }
    return out;
}

// The container's start time when it runs now (zero: unknown).
common::MicroTime running_since(const std::vector<SelectedContainer> &containers, const ContainerKey &key) {
    common::MicroTime since;
    for (const auto &sc : containers)
        if (sc.container.id == key.container_id && sc.pod_name == key.pod_name && sc.container.state.running)
            since = sc.container.state.running->started_at;
    return since;
}

}  // namespace

SessionClaim SessionClaim::try_claim(std::shared_ptr<LiveUpdateSlot> slot) {
    std::lock_guard lock(slot->mutex);
    SessionClaim claim;
    if (slot->in_session) return claim;
    slot->in_session = true;
    claim.slot_ = std::move(slot);
    return claim;
}

SessionClaim::~SessionClaim() {
    if (!slot_) return;
    std::lock_guard lock(slot_->mutex);
    slot_->in_session = false;
    try {
        const SlotView view{slot_->monitor ? &*slot_->monitor : nullptr, slot_->status ? &*slot_->status : nullptr};
        slot_->entry = snapshot_entry(slot_->name, view);
    } catch (const std::exception &) {
        slot_->entry.clear();  // out of memory: the next snapshot writes it instead
    }
}

ReconcileSession::ReconcileSession(std::string name, SessionClaim claim, common::MicroTime start_time, bool batched)
    : name_(std::move(name)),
      claim_(std::move(claim)),
      slot_(&claim_.slot()),
      start_time_(start_time),
      batched_(batched) {}

void ReconcileSession::log(common::LogLevel level, std::string text) { log_.push_back({level, std::move(text)}); }

Step ReconcileSession::done_step(const api::LiveUpdateStatus &status, bool changed) {
    done_ = true;
    if (commit_) slot_->status = status;
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
        slot_->monitor.reset();
        slot_->status.reset();
        done_ = true;
        return Step{};
    }
    lu_object_ = lu;
    lu_ = &std::get<api::LiveUpdate>(lu->body);
    manifest_ = lu->meta.annotation(api::kAnnotationManifest);
    if (!slot_->status) slot_->status = lu_->status;
    previous_ = *slot_->status;

    if (!lu->meta.annotation(api::kAnnotationManagedBy).empty()) return done_step(previous_, false);  // D03

    if (auto msg = invalid_selector_message(lu_->spec))
        return handle_failure(create_failed_state(previous_, "Invalid", *msg, now_));

    const auto &spec_raw = lu->raw_field("spec");
    if (!slot_->monitor || !json_equal(slot_->monitor->spec_raw, spec_raw)) {
        slot_->monitor.emplace();
        slot_->monitor->spec_raw = spec_raw;
    }
    Monitor &monitor = *slot_->monitor;
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
    if (optional_failed_equal(previous_.failed, failed)) return done_step(previous_, false);
    if (failed.reason != kObjectNotFound)
        log(LogLevel::info, "LiveUpdate " + common::go_quote(name_) + " " + failed.reason + ": " + failed.message);
    api::LiveUpdateStatus next = previous_;
    next.failed = std::move(failed);
    return done_step(next, true);
}

Step ReconcileSession::start_sync() {
    Monitor &monitor = *slot_->monitor;
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
    // C08: forget containers no longer selected.
    for (auto it = monitor.containers.begin(); it != monitor.containers.end();) {
        bool selected = false;
        for (const auto &sc : resource_.containers)
            if (!sc.container.id.empty() && sc.container.id == it->first.container_id) selected = true;
        it = selected ? std::next(it) : monitor.containers.erase(it);
    }
    // C07: a recorded failure stops updates until a newer build clears it, or
    // (beyond Tilt) the container starts again: the failure was its last run's.
    for (const auto &sc : resource_.containers) {
        const auto it = monitor.containers.find({sc.container.id, sc.pod_name, sc.namespace_name});
        if (it == monitor.containers.end() || !it->second.failure) continue;
        ContainerTrack &track = it->second;
        const ContainerFailure &failure = *track.failure;
        const std::string display = container_display_name(sc.pod_name, sc.container.name, sc.container.id);
        const bool restarted = started_since(failure.container_started_at, sc.container);
        if (restarted || plannable_again(track)) {
            log(LogLevel::info,
                restarted ? "Container " + display + " started again since its update failed: live updates resume"
                          : "The cause of the stopped update is gone (" + failure.message +
                                "): live updates to container " + display + " resume");
            track.failure.reset();
            continue;
        }
        report_skipped_changes(track, display);
        if (!resource_.failure_holds_all) continue;  // C10: held alone, in its visit
        status_.failed = create_failed_state(previous_, failure.reason,
                                             holding_all(failure.reason, failure.message, it->first), now_);
        return finish_sync();
    }
    return advance_batch();
}

common::MicroTime ReconcileSession::synced_through(const ContainerTrack &track) const {
    return track.last_file_time_synced.is_zero() ? start_time_ : track.last_file_time_synced;
}

// An UpdateStopped failure is a plan that could not be made (a stop path, a
// file no sync maps, a sync folder that was gone). When every change since the
// last sync plans now, its cause is gone: a stop file or an unmapped file still
// fails, a folder that is back does not.
bool ReconcileSession::plannable_again(const ContainerTrack &track) const {
    if (!track.failure || track.failure->reason != "UpdateStopped") return false;
    const ChangedFiles pending = files_changed_after(*slot_->monitor, synced_through(track));
    return !pending.files.empty() && !create_plan(lu_->spec, pending.files, PlanMappings::count_only).failed;
}

void ReconcileSession::report_skipped_changes(ContainerTrack &track, const std::string &display) {
    const ChangedFiles pending = files_changed_after(*slot_->monitor, synced_through(track));
    if (pending.files.empty() || !(track.skipped_reported_through < pending.new_high_water_mark)) return;
    track.skipped_reported_through = pending.new_high_water_mark;
    std::string clears = "A new build of the resource clears this, and so does the container starting again";
    if (track.failure->reason == "UpdateStopped")
        clears += " or the cause going away (e.g. a deleted sync folder back)";
    log(LogLevel::warn, "Skipping " + std::to_string(pending.files.size()) + " changed file(s) for container " +
                            display + ": its last update failed (" + track.failure->reason + ": " +
                            track.failure->message + "). " + clears + ".");
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

ReconcileSession::Visit ReconcileSession::visit(const SelectedContainer &sc) {
    Monitor &monitor = *slot_->monitor;
    const auto &spec = lu_->spec;
    const auto &c = sc.container;
    const ContainerKey key{c.id, sc.pod_name, sc.namespace_name};

    common::MicroTime high_water_mark = start_time_;
    const auto existing = monitor.containers.find(key);  // C09: by ID, so a restart in place keeps its track
    const bool known = existing != monitor.containers.end();
    const ContainerTrack track = known ? existing->second : ContainerTrack{};
    if (known && !track.last_file_time_synced.is_zero()) high_water_mark = track.last_file_time_synced;

    ChangedFiles changed = files_changed_after(monitor, high_water_mark);
    const bool terminated = sc.pod_phase == "Succeeded" || sc.pod_phase == "Failed" || c.state.terminated;
    // C10: still held (start_sync cleared what no longer holds it); its changes wait.
    if (!terminated && track.failure) {
        if (!changed.files.empty()) any_files_to_sync_ = true;
        Visit held;
        held.merge = Merge{{}, key, changed.new_high_water_mark, changed.new_low_water_mark, true};
        held.merge->one.failed = api::LiveUpdateStateFailed{track.failure->reason, track.failure->message, {}};
        return held;
    }
    // I02, I04: only with initialSync, and once per container ID.
    const bool initial_sync = spec.initial_sync && (!known || track.last_file_time_synced.is_zero());
    std::vector<common::IgnoreDef> filter;
    if (initial_sync) {
        try {
            filter = initial_sync_filter(source_ignores(monitor, spec));
            auto collected = collect_initial_sync_files(spec, ignore_set_of(filter));
            for (auto &w : collected.warnings) log(LogLevel::warn, std::move(w));
            changed.files = std::move(collected.files);
        } catch (const std::exception &e) {
            Visit failed;
            failed.failed =
                create_failed_state(previous_, "InitialSyncError",
                                    std::string("Failed to collect files for initial sync: ") + e.what(), now_);
            return failed;
        }
        changed.new_high_water_mark = now_;
        // Changes made while the initial sync runs are newer than now: they go out next time (I05).
        changed.new_low_water_mark = start_time_;
    }
    if (!changed.files.empty()) any_files_to_sync_ = true;

    if (terminated) {
        if (terminated_pod_name_.empty()) terminated_pod_name_ = sc.pod_name;
        return Visit{};
    }

    // C03: no ID or not running waits; C04: manual mode waits for its trigger.
    std::optional<api::LiveUpdateContainerStateWaiting> waiting;
    if (!c.state.running || c.id.empty())
        waiting = api::LiveUpdateContainerStateWaiting{"ContainerWaiting", "Waiting for container to start"};
    else if (waiting_on_trigger_)
        waiting = api::LiveUpdateContainerStateWaiting{"Trigger", "Only updates on manual trigger"};

    api::LiveUpdateStatus one;
    const auto plan =
        create_plan(spec, changed.files, initial_sync ? PlanMappings::count_only : PlanMappings::each_file);
    const api::LiveUpdateContainerStatus idle{
        c.name, c.id, sc.pod_name, sc.namespace_name, track.last_file_time_synced, "", waiting};
    const bool nothing_to_sync = plan.plan.synced == 0 && plan.plan.restart_paths.empty();
    if (plan.failed) {
        one.failed = api::LiveUpdateStateFailed{plan.failed->reason, plan.failed->message, {}};
    } else if (!nothing_to_sync && c.state.waiting && c.state.waiting->reason == "CrashLoopBackOff") {
        // C05; with nothing to sync a crash-looping container stays idle, not failed.
        one.failed = api::LiveUpdateStateFailed{
            "CrashLoopBackOff", "Cannot live update because container crashing. Pod: " + sc.pod_name, {}};
    } else if (nothing_to_sync || waiting) {
        one.containers.push_back(idle);
    } else {
        const std::string display = container_display_name(sc.pod_name, c.name, c.id);
        const UpdateTarget target{
            name_, resource_.via,
            updater::ContainerRef{c.id, c.name, sc.pod_name, sc.namespace_name, resource_.local_root}, display};
        PlannedUpdate planned = initial_sync ? plan_initial_sync(spec, target, changed.files, std::move(filter))
                                             : plan_update(spec, target, plan.plan);
        log_.insert(log_.end(), planned.log.begin(), planned.log.end());
        one.failed = std::move(planned.failed);
        if (planned.update) {
            if (!update_event_dispatched_) {  // X05: started, before the first update
                update_event_dispatched_ = true;
                events_.push_back({"started", name_, manifest_, std::move(changed.files), ""});
            }
            Visit updating;
            updating.pending = Pending{key, planned.update->container, display, changed.new_high_water_mark,
                                       changed.new_low_water_mark};
            updating.update = std::move(planned.update);
            return updating;
        }
    }
    Visit settled;
    settled.merge = Merge{std::move(one), key, changed.new_high_water_mark, changed.new_low_water_mark};
    return settled;
}

bool ReconcileSession::merge_container(api::LiveUpdateStatus one, bool files_applied, const ContainerKey &key,
                                       common::MicroTime new_high_water_mark, common::MicroTime new_low_water_mark,
                                       bool already_held) {
    if (one.failed) one.failed = create_failed_state(previous_, one.failed->reason, one.failed->message, now_);
    ContainerTrack &track = slot_->monitor->containers[key];
    if (one.failed) {
        if (!already_held)
            track.failure = ContainerFailure{one.failed->reason, one.failed->message, new_low_water_mark,
                                             running_since(resource_.containers, key)};
        if (!resource_.failure_holds_all) {
            hold(key, track, *one.failed, already_held);
            return false;
        }
        status_.failed = one.failed;
        status_.failed->message = holding_all(one.failed->reason, one.failed->message, key);
        status_.containers.clear();
        return true;
    }
    if (files_applied) track.last_file_time_synced = new_high_water_mark;
    status_.containers.insert(status_.containers.end(), one.containers.begin(), one.containers.end());
    return false;
}

std::size_t ReconcileSession::pending_updates() const {
    return static_cast<std::size_t>(
        std::count_if(batch_.begin(), batch_.end(), [](const Visit &v) { return v.pending; }));
}

Step ReconcileSession::resume_batch(const std::vector<updater::Outcome> &outcomes, common::MicroTime now) {
    const std::size_t updates = pending_updates();
    const auto infra = std::find_if(outcomes.begin(), outcomes.end(), [](const updater::Outcome &o) {
        return o.kind == updater::Outcome::Kind::infra_failure;
    });
    // An infrastructure failure that holds every container ends the fold (C07); one holding its own alone does not
    // (C10).
    const bool enough = infra != outcomes.end() && resource_.failure_holds_all
                            ? infra < outcomes.begin() + static_cast<std::ptrdiff_t>(updates)
                            : outcomes.size() == updates;
    if (!enough || outcomes.size() > updates)
        throw common::DecodeError(
            "outcomes", "expected " + std::to_string(updates) + " outcomes, got " + std::to_string(outcomes.size()));
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
    api::LiveUpdateContainerStatus c;
    c.container_name = p.ref.name;
    c.container_id = p.ref.id;
    c.pod_name = p.ref.pod;
    c.namespace_name = p.ref.namespace_name;
    c.last_file_time_synced = p.new_high_water_mark.is_zero() ? now_ : p.new_high_water_mark;

    api::LiveUpdateStatus one;
    bool files_applied = true;
    switch (outcome.kind) {
    case updater::Outcome::Kind::container_not_running: {
        // Paused, say: a passing state, not the container's failure. Nothing
        // changed in it, so its changes stay pending and go out once it runs.
        log(LogLevel::info, "  \u2192 Container " + p.display_name + " is not running (" + outcome.message +
                                "): its changes go out once it runs again");
        const auto &tracks = slot_->monitor->containers;
        const auto known = tracks.find(p.key);
        c.last_file_time_synced = known == tracks.end() ? common::MicroTime{} : known->second.last_file_time_synced;
        c.waiting = api::LiveUpdateContainerStateWaiting{"ContainerWaiting", "Waiting for container to start"};
        one.containers.push_back(std::move(c));
        files_applied = false;
        break;
    }
    case updater::Outcome::Kind::ok:
        log(LogLevel::info, "  \u2192 Container " + p.display_name + " updated!");
        one.containers.push_back(std::move(c));
        break;
    case updater::Outcome::Kind::run_failure:
        log(LogLevel::info, "  \u2192 Failed to update container " + p.display_name + ": " + outcome.message);
        c.last_exec_error = outcome.message;
        one.containers.push_back(std::move(c));
        break;
    case updater::Outcome::Kind::infra_failure: {
        // X03: any other updater failure fails the LiveUpdate, naming the container.
        const std::string msg = !p.ref.pod.empty() ? "Updating pod " + p.ref.pod + ": " + outcome.message
                                                   : "Updating container " + p.display_name + ": " + outcome.message;
        one.failed = api::LiveUpdateStateFailed{"UpdateFailed", msg, {}};
        break;
    }
    }
    return merge_container(std::move(one), files_applied, p.key, p.new_high_water_mark, p.new_low_water_mark);
}

std::string ReconcileSession::holding_all(const std::string &reason, const std::string &message,
                                          const ContainerKey &key) const {
    if (reason != "UpdateFailed") return message;  // a plan's failure (a stop path) is every container's own
    std::string name;
    std::size_t others = 0;
    for (const auto &sc : resource_.containers) {
        if (sc.container.id == key.container_id && sc.pod_name == key.pod_name)
            name = sc.container.name;
        else
            ++others;
    }
    if (others == 0) return message;  // Tilt's message, word for word: nobody else is held
    // C11: Tilt's rule for pods holds the others; the status says why they get nothing.
    return message + " (container " + container_display_name(key.pod_name, name, key.container_id) + " failed; the " +
           std::to_string(others) + " other container(s) are held because of it, Tilt's rule for pods: they get " +
           "the changes they missed once it is gone, replaced or started again, or a new build starts)";
}

void ReconcileSession::hold(const ContainerKey &key, const ContainerTrack &track,
                            const api::LiveUpdateStateFailed &failed, bool already_held) {
    api::LiveUpdateContainerStatus held{
        "", key.container_id, key.pod_name, key.namespace_name, track.last_file_time_synced, "", std::nullopt};
    for (const auto &sc : resource_.containers)
        if (sc.container.id == key.container_id && sc.pod_name == key.pod_name) held.container_name = sc.container.name;
    const std::string display = container_display_name(key.pod_name, held.container_name, key.container_id);
    const std::string why = failed.message + " (held: container " + display +
                            " gets no changes until it starts again, is replaced or a new build starts; the "
                            "other containers keep getting theirs)";
    held.waiting = api::LiveUpdateContainerStateWaiting{failed.reason, why};
    status_.containers.push_back(std::move(held));
    held_.push_back({failed, display, !already_held});
}

Step ReconcileSession::finish_sync() {
    // C10: with every listed container held, the LiveUpdate fails as Tilt's does for its one container.
    if (!status_.failed && !held_.empty() && held_.size() == status_.containers.size()) {
        status_.failed = held_.front().failed;
        status_.containers.clear();
    }
    if (!status_.failed) {
        for (const Held &h : held_)
            if (h.newly)
                log(LogLevel::warn, "LiveUpdate " + common::go_quote(name_) + " holds container " + h.display + " (" +
                                        h.failed.reason + ": " + h.failed.message +
                                        "): it gets no changes until it starts again, is replaced or a new build "
                                        "starts; the other containers keep getting theirs");
    }
    // C06: only terminated containers had files to sync.
    if (!status_.failed && !terminated_pod_name_.empty() && any_files_to_sync_ && status_.containers.empty()) {
        status_.failed = create_failed_state(
            previous_, "Terminated", "Container for live update is stopped. Pod name: " + terminated_pod_name_, now_);
    }
    if (update_event_dispatched_) {
        std::string error;
        if (status_.failed) {
            error = status_.failed->message;
        } else if (!held_.empty()) {
            error = held_.front().failed.message;
        } else {
            for (const auto &c : status_.containers) {
                if (!c.last_exec_error.empty()) {
                    error = c.last_exec_error;  // X02: the completed event carries it
                    break;
                }
            }
        }
        events_.push_back({"completed", name_, manifest_, {}, error});  // X05: after the last update
    }
    if (status_.failed && !(previous_.failed && *previous_.failed == *status_.failed) &&
        status_.failed->reason != kObjectNotFound)
        log(LogLevel::info,
            "LiveUpdate " + common::go_quote(name_) + " " + status_.failed->reason + ": " + status_.failed->message);
    // An abandoned reconcile was not written: the next one must compute its status again.
    if (commit_) slot_->monitor->has_changes_to_sync = false;
    return done_step(status_, !(status_ == previous_));
}

void ReconcileSession::abandon() {
    if (!awaiting_outcome()) return;
    commit_ = false;
    const updater::Outcome gave_up =
        updater::Outcome::infra_failure("the host ended the reconcile before reporting the outcome");
    while (batch_pending_) resume_batch(std::vector<updater::Outcome>(pending_updates(), gave_up), now_);
}

}  // namespace liveupdate
