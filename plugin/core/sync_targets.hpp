// Where a LiveUpdate's content lives, for a host that verifies containers
// (liveupdate/ext/sync_targets.h): the updater class, the running containers
// its selector picks, each sync rule as a whole and the initial sync's
// filter, by the same rules a reconcile applies.
#pragma once

#include <string>
#include <variant>
#include <vector>

#include <boost/json.hpp>

#include "liveupdate/updater.hpp"
#include "plugin/core/api/file_watch.hpp"
#include "plugin/core/dependencies.hpp"
#include "plugin/core/plan.hpp"

namespace liveupdate {

struct SyncTargets {
    std::string via;                                // updater class
    std::vector<updater::ContainerRef> containers;  // root: LocalContainer spec.root; "" elsewhere
    std::vector<updater::CopyMapping> targets;      // whole_rule_mapping of each sync rule
    std::vector<common::IgnoreDef> filter;          // initial_sync_filter of the sources' ignores
};

struct SyncTargetsProblem {
    bool not_found = false;  // no LiveUpdate of that name; else it has no targets now
    std::string message;
};

// Throws only what the allocator does: anything else in the way is the problem.
std::variant<SyncTargets, SyncTargetsProblem> sync_targets_of(const std::string &live_update,
                                                              const ObjectLookup &lookup);

// The targets document of liveupdate/ext/sync_targets.h.
boost::json::object encode_sync_targets(const SyncTargets &targets);

}  // namespace liveupdate
