// The tilt.dev/v1alpha1 kinds the liveupdate plugin reads from a cluster, as
// CustomResourceDefinitions: the one source `lu-host crds` prints, the
// webhook's rules name and the webhook judges. Namespaced, unlike Tilt's API
// server: one operator serves one namespace (its Lease), and a Role of that
// namespace is all it needs. The plugin keys objects by kind and name only,
// which one namespace keeps unique.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include <boost/json.hpp>

namespace liveupdate::host::cluster {

inline constexpr std::string_view kGroup = "tilt.dev";
inline constexpr std::string_view kVersion = "v1alpha1";
// Tilt's trigger queue: a core ConfigMap of the namespace, followed and written by the operator.
inline constexpr const char *kTriggerQueueConfigMap = "tilt-trigger-queue";

struct PrinterColumn {
    std::string name;
    std::string type;  // string, date, integer, boolean
    std::string json_path;
    std::string description;
    int priority = 0;  // 1: only with -o wide
};

struct ClusterKind {
    std::string kind;
    std::string plural;
    std::string singular;
    std::vector<std::string> short_names;
    std::string description;
    boost::json::object spec;    // openAPIV3Schema of spec
    boost::json::object status;  // openAPIV3Schema of status
    std::vector<PrinterColumn> columns;
};

const std::vector<ClusterKind> &cluster_kinds();
const ClusterKind *find_cluster_kind(std::string_view kind);

// The apiextensions.k8s.io/v1 CustomResourceDefinition of one kind.
boost::json::object custom_resource_definition(const ClusterKind &kind);

}  // namespace liveupdate::host::cluster
