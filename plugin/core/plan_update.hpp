// One container's update from the plan (Tilt's applyInternal up to the
// updater): what to copy, delete and run there, and the lines Tilt writes
// before it (X07). P05 splits copies from deletes, P06 boils the runs, P07
// says whether the container restarts.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "plugin/core/step.hpp"

namespace liveupdate {

// Where an update goes.
struct UpdateTarget {
    std::string live_update;
    std::string via;  // the updater serving the container
    updater::ContainerRef container;
    std::string display_name;  // container_display_name, for the lines
};

// An update, or why none can be made; the lines are written either way.
struct PlannedUpdate {
    std::optional<ContainerUpdate> update;
    std::optional<api::LiveUpdateStateFailed> failed;  // "Invalid": a path could not be mapped
    std::vector<LogLine> log;
};

// The update of the files a plan synced (create_plan with PlanMappings::each_file).
PlannedUpdate plan_update(const api::LiveUpdateSpec &spec, const UpdateTarget &target, const Plan &plan);

// I01: an initial sync copies every sync path whole, through the filter;
// files: the ones collected beneath the syncs, which trigger the runs.
PlannedUpdate plan_initial_sync(const api::LiveUpdateSpec &spec, const UpdateTarget &target,
                                const std::vector<std::string> &files, std::vector<common::IgnoreDef> filter);

}  // namespace liveupdate
