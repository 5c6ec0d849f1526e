// Where a LiveUpdate's content lives, for `lu-host verify`: the updater
// class, the running containers its selector picks and its sync targets with
// the filter the sync applies. The plugin decides them by its own rules
// (liveupdate/ext/sync_targets.h); this reads its answer.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "common/ignore_defs.hpp"
#include "host/core/plugin_slot.hpp"
#include "host/verify/tree_compare.hpp"
#include "liveupdate/updater.hpp"

namespace liveupdate::host::verify {

// A running container the LiveUpdate's selector picks.
struct RunningContainer {
    updater::ContainerRef ref;
    std::string display;  // for people: "pod/container", the name or a short ID
};

struct LiveUpdateTargets {
    std::string name;
    std::string via;  // updater class
    std::vector<RunningContainer> containers;
    std::vector<updater::CopyMapping> targets;  // each sync rule mapped as a whole (plan.hpp whole_rule_mapping)
    std::vector<common::IgnoreDef> filter;      // the sources' ignores and the built-in ones
    std::string problem;                        // why it cannot be verified; "" when it can
};

// The targets from the plugin's answer (result code and text, see
// liveupdate/ext/sync_targets.h). Never throws: what stands in the way,
// a malformed answer included, is in `problem`.
LiveUpdateTargets targets_of_answer(const std::string &live_update, int32_t rc, std::string_view text);

// Asks the engine in service; a hot reload waits until it answered. Never throws.
LiveUpdateTargets resolve_targets(const std::string &live_update, const host::PluginSlot &plugin_slot);

// The container paths of every sync target of every LiveUpdate that shares
// the container (same class and ID), but of `self`'s own target `own`.
std::vector<std::string> other_targets(const std::vector<LiveUpdateTargets> &all, const LiveUpdateTargets &self,
                                       const RunningContainer &container, const updater::CopyMapping &own);

}  // namespace liveupdate::host::verify
