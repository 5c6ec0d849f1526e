// Where a LiveUpdate's content lives, for `lu-host verify`: the updater
// class, the running containers its selector picks and its sync targets with
// the filter the sync applies, all decided by the plugin's own rules
// (plugin/core: dependencies, containers, plan, initial_sync) over the
// daemon's objects.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <boost/json.hpp>

#include "plugin/core/api/api_object.hpp"
#include "host/verify/tree_compare.hpp"

namespace liveupdate::verify {

struct ContainerTarget {
    std::string id;
    std::string name;
    std::string pod_name;        // "" outside Kubernetes
    std::string namespace_name;  // "" outside Kubernetes
    std::string root;            // local containers: the folder standing for "/"
    std::string display() const;
};

struct LiveUpdateTargets {
    std::string name;
    std::string via;  // updater class
    std::vector<ContainerTarget> containers;  // the running ones
    std::vector<SyncTarget> targets;
    std::vector<api::IgnoreDef> filter;  // the sources' ignores and the built-in ones
    std::string problem;  // why it cannot be verified; "" when it can
};

// The daemon's object of that kind and name, if it has one.
using JsonLookup = std::function<std::optional<boost::json::object>(api::Kind, const std::string &name)>;

// Never throws: what stands in the way is in `problem`.
LiveUpdateTargets resolve_targets(const std::string &live_update, const JsonLookup &lookup);

// The container paths of every sync target of every LiveUpdate that shares
// the container (same class and ID), but of `self`'s own target `own`.
std::vector<std::string> other_targets(const std::vector<LiveUpdateTargets> &all, const LiveUpdateTargets &self,
                                       const ContainerTarget &container, const SyncTarget &own);

}  // namespace liveupdate::verify
