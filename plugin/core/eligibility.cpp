#include "plugin/core/eligibility.hpp"

#include "plugin/core/initial_sync.hpp"

namespace liveupdate {

namespace {

// True when the container runs now and started after `before` (zero: unknown, never).
bool started_since(common::MicroTime before, const api::ContainerState &state) {
    return !before.is_zero() && state.running && before < state.running->started_at;
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

std::string display_of(const SelectedContainer &sc) {
    return container_display_name(sc.ref.pod, sc.ref.name, sc.ref.id);
}

}  // namespace

ChangedFiles changes_since_sync(const Monitor &monitor, const ContainerTrack &track, common::MicroTime start_time) {
    return files_changed_after(monitor,
                               track.last_file_time_synced.is_zero() ? start_time : track.last_file_time_synced);
}

void forget_unselected(Monitor &monitor, const std::vector<SelectedContainer> &selected) {
    for (auto it = monitor.containers.begin(); it != monitor.containers.end();) {
        bool is_selected = false;
        for (const auto &sc : selected)
            if (!sc.ref.id.empty() && sc.ref.id == it->first.container_id) is_selected = true;
        it = is_selected ? std::next(it) : monitor.containers.erase(it);
    }
}

std::optional<std::string> failure_cleared(const Monitor &monitor, const api::LiveUpdateSpec &spec,
                                           const ContainerTrack &track, const SelectedContainer &sc,
                                           common::MicroTime start_time) {
    const ContainerFailure &failure = *track.failure;
    if (started_since(failure.container_started_at, sc.state))
        return "Container " + display_of(sc) + " started again since its update failed: live updates resume";
    // An UpdateStopped failure is a plan that could not be made (a stop path,
    // a file no sync maps, a sync folder that was gone). When every change
    // since the last sync plans now, its cause is gone: a stop file or an
    // unmapped file still fails, a folder that is back does not.
    if (failure.reason != "UpdateStopped") return std::nullopt;
    const ChangedFiles pending = changes_since_sync(monitor, track, start_time);
    if (pending.files.empty() || create_plan(spec, pending.files, PlanMappings::count_only).failed) return std::nullopt;
    return "The cause of the stopped update is gone (" + failure.message + "): live updates to container " +
           display_of(sc) + " resume";
}

std::optional<std::string> skipped_changes_line(const Monitor &monitor, ContainerTrack &track,
                                                const SelectedContainer &sc, common::MicroTime start_time) {
    const ChangedFiles pending = changes_since_sync(monitor, track, start_time);
    if (pending.files.empty() || !(track.skipped_reported_through < pending.new_high_water_mark)) return std::nullopt;
    track.skipped_reported_through = pending.new_high_water_mark;
    const ContainerFailure &failure = *track.failure;
    std::string clears = "A new build of the resource clears this, and so does the container starting again";
    if (failure.reason == "UpdateStopped") clears += " or the cause going away (e.g. a deleted sync folder back)";
    return "Skipping " + std::to_string(pending.files.size()) + " changed file(s) for container " + display_of(sc) +
           ": its last update failed (" + failure.reason + ": " + failure.message + "). " + clears + ".";
}

bool has_ended(const SelectedContainer &sc) {
    return sc.pod_phase == "Succeeded" || sc.pod_phase == "Failed" || sc.state.terminated;
}

bool needs_initial_sync(const api::LiveUpdateSpec &spec, const ContainerTrack &track) {
    return spec.initial_sync && track.last_file_time_synced.is_zero();
}

InitialSyncChanges initial_sync_changes(const Monitor &monitor, const api::LiveUpdateSpec &spec,
                                        common::MicroTime start_time, common::MicroTime now) {
    InitialSyncChanges out;
    out.filter = initial_sync_filter(source_ignores(monitor, spec));
    auto collected = collect_initial_sync_files(spec, ignore_set_of(out.filter));
    out.warnings = std::move(collected.warnings);
    out.changed.files = std::move(collected.files);
    out.changed.new_high_water_mark = now;
    // Changes made while the initial sync runs are newer than now: they go out next time (I05).
    out.changed.new_low_water_mark = start_time;
    return out;
}

std::optional<api::LiveUpdateContainerStateWaiting> waiting_of(const SelectedContainer &sc, bool waiting_on_trigger) {
    if (!sc.state.running || sc.ref.id.empty())
        return api::LiveUpdateContainerStateWaiting{"ContainerWaiting", "Waiting for container to start"};
    if (waiting_on_trigger) return api::LiveUpdateContainerStateWaiting{"Trigger", "Only updates on manual trigger"};
    return std::nullopt;
}

bool nothing_to_sync(const Plan &plan) { return plan.synced == 0 && plan.restart_paths.empty(); }

std::optional<api::LiveUpdateStateFailed> update_blocked(const PlanResult &plan, const SelectedContainer &sc) {
    if (plan.failed) return api::LiveUpdateStateFailed{plan.failed->reason, plan.failed->message, {}};
    const auto &waiting = sc.state.waiting;
    // C05; with nothing to sync a crash-looping container stays idle, not failed.
    if (!nothing_to_sync(plan.plan) && waiting && waiting->reason == "CrashLoopBackOff")
        return api::LiveUpdateStateFailed{
            "CrashLoopBackOff", "Cannot live update because container crashing. Pod: " + sc.ref.pod, {}};
    return std::nullopt;
}

}  // namespace liveupdate
