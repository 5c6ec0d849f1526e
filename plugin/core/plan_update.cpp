#include "plugin/core/plan_update.hpp"

#include <algorithm>
#include <exception>

#include "common/paths.hpp"

namespace liveupdate {

using common::LogLevel;

namespace {

ContainerUpdate update_to(const api::LiveUpdateSpec &spec, const UpdateTarget &target) {
    ContainerUpdate update;
    update.live_update = target.live_update;
    update.via = target.via;
    update.container = target.container;
    for (const auto &rule : sync_rules(spec)) update.sync_roots.push_back(common::clean_path(rule.container_path));
    return update;
}

api::LiveUpdateStateFailed mapping_failed(const std::exception &e) {
    return api::LiveUpdateStateFailed{"Invalid", std::string("Mapping paths: ") + e.what(), {}};
}

}  // namespace

PlannedUpdate plan_update(const api::LiveUpdateSpec &spec, const UpdateTarget &target, const Plan &plan) {
    PlannedUpdate out;
    ContainerUpdate update = update_to(spec, target);
    update.runs = boil_runs(spec, plan.sync_paths);
    // P07: restart: always restarts the container; otherwise a hot reload.
    update.restart = spec.restart == "always" || !plan.restart_paths.empty();
    CopyDelete split;
    try {
        split = split_by_existence(plan.sync_paths, sync_rules(spec));
    } catch (const std::exception &e) {
        out.failed = mapping_failed(e);
        return out;
    }
    const std::string names = "[" + target.display_name + "]";
    // X07: Tilt's "Will delete" and "Will copy" lines.
    if (!split.to_delete.empty()) {
        out.log.push_back({LogLevel::info, "Will delete " + std::to_string(split.to_delete.size()) +
                                               " file(s) from container: " + names});
        for (const auto &m : split.to_delete)
            out.log.push_back(
                {LogLevel::info, "- '" + m.container_path + "' (matched local path: '" + m.local_path + "')"});
    }
    if (!split.to_copy.empty()) {
        out.log.push_back(
            {LogLevel::info, "Will copy " + std::to_string(split.to_copy.size()) + " file(s) to container: " + names});
        for (const auto &m : split.to_copy)
            out.log.push_back({LogLevel::info, "- '" + m.local_path + "' --> '" + m.container_path + "'"});
    }
    update.copy = std::move(split.to_copy);
    for (auto &m : split.to_delete) update.delete_paths.push_back(std::move(m.container_path));
    out.update = std::move(update);
    return out;
}

PlannedUpdate plan_initial_sync(const api::LiveUpdateSpec &spec, const UpdateTarget &target,
                                const std::vector<std::string> &files, std::vector<common::IgnoreDef> filter) {
    PlannedUpdate out;
    ContainerUpdate update = update_to(spec, target);
    // An initial sync's files were collected beneath the syncs: each one syncs.
    update.runs = boil_runs_of_local_paths(spec, files);
    update.restart = spec.restart == "always";  // P07
    update.initial_sync = true;
    try {
        for (const auto &rule : sync_rules(spec)) update.copy.push_back(whole_rule_mapping(rule));
    } catch (const std::exception &e) {
        out.failed = mapping_failed(e);
    }
    // The contract lists copies by container path, the initial sync's rules included.
    std::stable_sort(update.copy.begin(), update.copy.end(),
                     [](const updater::CopyMapping &a, const updater::CopyMapping &b) {
                         return a.container_path < b.container_path;
                     });
    update.filter = std::move(filter);
    out.log.push_back(
        {LogLevel::info, "Initial sync: will copy sync paths to container: [" + target.display_name + "]"});
    // Written even when a rule could not be mapped: they name the rules mapped before it.
    for (const auto &m : update.copy)
        out.log.push_back({LogLevel::info, "- '" + m.local_path + "' --> '" + m.container_path + "'"});
    if (!out.failed) out.update = std::move(update);
    return out;
}

}  // namespace liveupdate
