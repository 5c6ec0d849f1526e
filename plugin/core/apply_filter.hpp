// Which discovered pods belong to the current KubernetesApply (Tilt's
// KubernetesApplyFilter / FilterPods): pods of an older ReplicaSet of the
// same ancestor are dropped, and pods must carry the UID and the
// tilt.dev/pod-template-hash of an object the apply deployed.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "plugin/core/api/kubernetes_discovery.hpp"

namespace liveupdate {

struct ApplyFilter {
    std::vector<std::string> deployed_uids;
    std::vector<std::string> pod_template_hashes;
};

// Reads the UIDs and pod template hashes from an apply's resultYAML (YAML or
// JSON). Throws std::runtime_error for a deployed object without a UID.
ApplyFilter apply_filter_from_result(const std::string &result_yaml);

// filter null: no KubernetesApply, only the ReplicaSet pruning applies.
std::vector<api::Pod> filter_pods(const ApplyFilter *filter, const std::vector<api::Pod> &pods);

}  // namespace liveupdate
