// `lu-host rbac`: the least permissions `lu-host up --from-cluster` needs in
// a namespace, as rbac.authorization.k8s.io/v1 objects: one Role there. Its
// Lease, the trigger queue ConfigMap, the pods it discovers and execs into,
// their owners read for the discovery's ancestry, the tilt.dev kinds (which
// are Namespaced) read and their /status written. Nothing needs a
// ClusterRole: pods are always listed in a namespace; a KubernetesDiscovery
// watching another namespace needs the pod rules there too.
#pragma once

#include <string>
#include <vector>

#include <boost/json.hpp>

namespace liveupdate::host::cluster {

struct RbacSubject {
    enum class Kind { user, service_account };
    Kind kind = Kind::user;
    std::string name;
    std::string namespace_name;  // service_account only
};

// Role and RoleBinding, in that order.
std::vector<boost::json::value> operator_rbac(const std::string &namespace_name, const RbacSubject &subject);

}  // namespace liveupdate::host::cluster
