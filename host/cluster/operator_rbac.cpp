#include "host/cluster/operator_rbac.hpp"

#include "host/cluster/cluster_admission.hpp"
#include "host/cluster/cluster_kinds.hpp"
#include "host/cluster/lease_rules.hpp"

namespace liveupdate::host::cluster {
namespace json = boost::json;

namespace {

json::object rule(std::initializer_list<std::string_view> groups, std::initializer_list<std::string_view> resources,
                  std::initializer_list<std::string_view> verbs) {
    json::array g, r, v;
    for (const auto s : groups) g.emplace_back(s);
    for (const auto s : resources) r.emplace_back(s);
    for (const auto s : verbs) v.emplace_back(s);
    return json::object{{"apiGroups", std::move(g)}, {"resources", std::move(r)}, {"verbs", std::move(v)}};
}

json::object subject_of(const RbacSubject &s) {
    if (s.kind == RbacSubject::Kind::service_account)
        return json::object{{"kind", "ServiceAccount"}, {"name", s.name}, {"namespace", s.namespace_name}};
    return json::object{{"kind", "User"}, {"apiGroup", "rbac.authorization.k8s.io"}, {"name", s.name}};
}

json::object metadata(const std::string &name, const std::string &namespace_name) {
    json::object m{{"name", name}, {"labels", json::object{{"app.kubernetes.io/managed-by", "lu-host"}}}};
    if (!namespace_name.empty()) m["namespace"] = namespace_name;
    return m;
}

json::object binding(const char *kind, const char *role_kind, const std::string &name, const std::string &ns,
                     const RbacSubject &subject) {
    return json::object{
        {"apiVersion", "rbac.authorization.k8s.io/v1"},
        {"kind", kind},
        {"metadata", metadata(name, ns)},
        {"roleRef", json::object{{"apiGroup", "rbac.authorization.k8s.io"}, {"kind", role_kind}, {"name", name}}},
        {"subjects", json::array{subject_of(subject)}}};
}

}  // namespace

std::vector<json::value> operator_rbac(const std::string &ns, const RbacSubject &subject) {
    const std::string name = "lu-host-operator";
    json::array namespaced{json::object{{"apiGroups", json::array{"coordination.k8s.io"}},
                                        {"resources", json::array{"leases"}},
                                        {"resourceNames", json::array{kOperatorLeaseName}},
                                        {"verbs", json::array{"get", "update", "delete"}}},
                           rule({"coordination.k8s.io"}, {"leases"}, {"create"}),  // create cannot be limited by name
                           rule({""}, {"pods"}, {"get", "list", "watch"}),
                           rule({""}, {"pods/exec"}, {"create"}),
                           rule({"apps"}, {"replicasets", "deployments", "statefulsets", "daemonsets"}, {"get"}),
                           rule({"batch"}, {"jobs", "cronjobs"}, {"get"})};
    json::array plurals, statuses;
    for (const std::string_view kind : kTakenKinds) {
        const std::string plural = find_cluster_kind(kind)->plural;
        plurals.emplace_back(plural);
        if (kind == "LiveUpdate" || kind == "KubernetesDiscovery" || kind == "FileWatch")
            statuses.emplace_back(plural + "/status");
    }
    json::array cluster_rules{
        json::object{
            {"apiGroups", json::array{kGroup}}, {"resources", plurals}, {"verbs", json::array{"get", "list", "watch"}}},
        json::object{
            {"apiGroups", json::array{kGroup}}, {"resources", statuses}, {"verbs", json::array{"get", "update"}}}};
    const std::string cluster_name = name + "-" + ns;  // one per namespace served
    return {json::object{{"apiVersion", "rbac.authorization.k8s.io/v1"},
                         {"kind", "Role"},
                         {"metadata", metadata(name, ns)},
                         {"rules", std::move(namespaced)}},
            binding("RoleBinding", "Role", name, ns, subject),
            json::object{{"apiVersion", "rbac.authorization.k8s.io/v1"},
                         {"kind", "ClusterRole"},
                         {"metadata", metadata(cluster_name, "")},
                         {"rules", std::move(cluster_rules)}},
            binding("ClusterRoleBinding", "ClusterRole", cluster_name, "", subject)};
}

}  // namespace liveupdate::host::cluster
