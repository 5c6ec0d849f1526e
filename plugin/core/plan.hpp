// What to do with a set of changed files (Tilt's LiveUpdatePlan, path
// mappings and boiled runs): P01 mapping, P02 unmatched files, P03 stop
// paths, P05 copy/delete split, P06 execs with triggers.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "liveupdate/updater.hpp"
#include "plugin/core/api/live_update.hpp"

namespace liveupdate {

// The spec's syncs with localPath resolved against basePath.
std::vector<updater::CopyMapping> sync_rules(const api::LiveUpdateSpec &spec);

// P01: where a sync rule puts its local path as a whole (an initial sync):
// its container path, or, for a file rule whose container path ends in "/",
// the file's name inside that folder. Throws std::runtime_error naming the
// path when it cannot be stat'ed for a reason other than not existing.
updater::CopyMapping whole_rule_mapping(const updater::CopyMapping &rule);

// Whether create_plan maps each synced file to its container path, or only
// counts them: an initial sync copies whole sync paths, and mapping its
// 100,000 files would hold each path twice more.
enum class PlanMappings { each_file, count_only };

struct Plan {
    std::vector<updater::CopyMapping> sync_paths;  // PlanMappings::each_file only
    std::size_t synced = 0;                        // files a sync maps
    std::vector<std::string> no_match_paths;
    std::vector<std::string> stop_paths;
    std::vector<std::string> restart_paths;  // changed files under spec.restartPaths
};

struct PlanFailure {
    std::string reason;
    std::string message;
};

struct PlanResult {
    Plan plan;
    std::optional<PlanFailure> failed;  // UpdateStopped
};

// A changed file under spec.restartPaths is planned for a restart, and is not
// "unmatched" even when no sync maps it.
// Stats a sync's local path when a changed file falls under it (a file rule
// whose containerPath ends in "/" maps into that directory).
PlanResult create_plan(const api::LiveUpdateSpec &spec, const std::vector<std::string> &files_changed,
                       PlanMappings mappings = PlanMappings::each_file);

// P06: execs in order; one with triggerPaths only if a synced local path matches.
std::vector<updater::RunStep> boil_runs(const api::LiveUpdateSpec &spec,
                                        const std::vector<updater::CopyMapping> &synced);
// The same given the synced local paths themselves.
std::vector<updater::RunStep> boil_runs_of_local_paths(const api::LiveUpdateSpec &spec,
                                                       const std::vector<std::string> &synced_local_paths);

struct CopyDelete {
    std::vector<updater::CopyMapping> to_copy;    // exists locally; sorted by container path, unique
    std::vector<updater::CopyMapping> to_delete;  // gone locally; sorted by container path, unique
};

// P05. Throws std::runtime_error when a path cannot be stat'ed for another reason.
// rules (sync_rules): a path beneath a symlink below its rule's local path is
// no entry of the tree (tar never descends into a link), so it is deleted.
CopyDelete split_by_existence(const std::vector<updater::CopyMapping> &mappings,
                              const std::vector<updater::CopyMapping> &rules = {});

}  // namespace liveupdate
