// Which containers of a reconcile may be updated, and with which paths
// (Tilt's maybeSync up to the plan): what clears a recorded failure (C07),
// containers that ended (C06), wait (C03, C04) or crash (C05), and the files
// each one gets (F04, I01-I05). The reconciler asks; these decide.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "plugin/core/containers.hpp"
#include "plugin/core/monitor.hpp"
#include "plugin/core/plan.hpp"

namespace liveupdate {

// F04: the files changed since the container last synced (its track's mark,
// else the engine's start: a container first seen gets the changes since then).
ChangedFiles changes_since_sync(const Monitor &monitor, const ContainerTrack &track, common::MicroTime start_time);

// C08: forgets the tracks of containers no longer selected.
void forget_unselected(Monitor &monitor, const std::vector<SelectedContainer> &selected);

// C07: the line saying why the track's failure no longer holds the container,
// or nullopt while it does. Beyond Tilt, a container started again since the
// failure is free (the failure was its last run's), and so is one whose
// UpdateStopped cause is gone.
std::optional<std::string> failure_cleared(const Monitor &monitor, const api::LiveUpdateSpec &spec,
                                           const ContainerTrack &track, const SelectedContainer &sc,
                                           common::MicroTime start_time);

// C07: the warning that the container's changes wait for its failure, once
// per batch of changes (it moves track.skipped_reported_through).
std::optional<std::string> skipped_changes_line(const Monitor &monitor, ContainerTrack &track,
                                                const SelectedContainer &sc, common::MicroTime start_time);

// C06: the container, or its pod, has ended.
bool has_ended(const SelectedContainer &sc);

// I02, I04: only with initialSync, and once per container ID.
bool needs_initial_sync(const api::LiveUpdateSpec &spec, const ContainerTrack &track);

struct InitialSyncChanges {
    ChangedFiles changed;
    std::vector<common::IgnoreDef> filter;
    std::vector<std::string> warnings;
};

// I01: every file beneath the syncs, less what the filter ignores. Throws
// std::exception when they cannot be collected.
InitialSyncChanges initial_sync_changes(const Monitor &monitor, const api::LiveUpdateSpec &spec,
                                        common::MicroTime start_time, common::MicroTime now);

// C03: no ID or not running waits; C04: manual mode waits for its trigger.
std::optional<api::LiveUpdateContainerStateWaiting> waiting_of(const SelectedContainer &sc, bool waiting_on_trigger);

// Whether the plan gives the container nothing to do.
bool nothing_to_sync(const Plan &plan);

// Why the container gets no update of a plan: the plan's own failure (P02,
// P03) or, with something to sync, its crash loop (C05); nullopt: no reason.
std::optional<api::LiveUpdateStateFailed> update_blocked(const PlanResult &plan, const SelectedContainer &sc);

}  // namespace liveupdate
