// `lu-host rbac`: the least permissions `lu-host up --from-cluster` needs in
// a namespace, as rbac.authorization.k8s.io/v1 objects. In the namespace (a
// Role): its Lease, the pods it discovers and execs into, their owners read
// for the discovery's ancestry. The tilt.dev kinds are cluster-scoped (`lu-host
// crds`), so reading them and writing their /status takes a ClusterRole.
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

// Role, RoleBinding, ClusterRole, ClusterRoleBinding, in that order.
std::vector<boost::json::value> operator_rbac(const std::string &namespace_name, const RbacSubject &subject);

}  // namespace liveupdate::host::cluster
