// Pure rules of Kubernetes discovery, as Tilt's KubernetesDiscovery
// controller applies them: which pods a KubernetesDiscovery names (its
// spec.watches: a namespace and an owner UID found through ownerReferences;
// its spec.extraSelectors: label selectors) and the status.pods entry of a pod
// (Tilt's v1alpha1.Pod).
#pragma once

#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <boost/json.hpp>

namespace liveupdate::host::kubernetes {

struct LabelRequirement {
    std::string key;
    std::string op;  // In, NotIn, Exists, DoesNotExist
    std::vector<std::string> values;
    auto operator<=>(const LabelRequirement &) const = default;
};

struct LabelSelector {
    std::map<std::string, std::string> match_labels;
    std::vector<LabelRequirement> match_expressions;
    auto operator<=>(const LabelSelector &) const = default;
};

struct WatchRef {
    std::string namespace_name;
    std::string uid;  // empty: the namespace only (pods then come from extraSelectors)
    std::string name;
    auto operator<=>(const WatchRef &) const = default;
};

struct DiscoverySpec {
    std::vector<WatchRef> watches;
    std::vector<LabelSelector> extra_selectors;
    auto operator<=>(const DiscoverySpec &) const = default;
};

// spec of a KubernetesDiscovery. Throws std::invalid_argument naming the field.
DiscoverySpec discovery_spec_of(const boost::json::object &object);

// The namespaces to list and watch (watches' namespaces; "default" when none is given).
std::set<std::string> namespaces_of(const DiscoverySpec &spec);

// A selector in the labelSelector query syntax ("app=web,tier in (a,b)").
std::string selector_query(const LabelSelector &selector);
bool selector_matches(const LabelSelector &selector, const std::map<std::string, std::string> &labels);

// An object's owner, as read from its controller ownerReference.
struct OwnerRef {
    std::string kind;
    std::string name;
    std::string uid;
    std::string api_version;
};
std::optional<OwnerRef> controller_owner(const boost::json::object &object);

// The chain of a pod's owners, nearest first (ReplicaSet, then Deployment...),
// each with its creation time, as the discovery found them.
struct Ancestor {
    OwnerRef ref;
    std::string creation_timestamp;
};

// Whether the pod belongs to the discovery and the watched UID it was found
// through ("" when by a selector or the pod's own UID did not count).
struct PodMatch {
    bool matches = false;
    std::string ancestor_uid;
};
PodMatch match_pod(const DiscoverySpec &spec, const boost::json::object &pod, const std::vector<Ancestor> &ancestors);

// Tilt's v1alpha1.Pod for a core/v1 Pod: name, namespace, createdAt, phase,
// deleting, containers (name, id without its runtime scheme, image, ready,
// restarts, state), initContainers, status, ancestorUID, owner.
// A pod field of another type than Kubernetes gives it is a
// common::DecodeError naming its path, here and in match_pod and
// controller_owner.
boost::json::object pod_status_entry(const boost::json::object &pod, const std::string &ancestor_uid,
                                     const std::vector<Ancestor> &ancestors);

}  // namespace liveupdate::host::kubernetes
