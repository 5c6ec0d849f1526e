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

json::object named_rule(std::string_view group, std::string_view resource, std::string_view name,
                        std::initializer_list<std::string_view> verbs) {
    json::object r = rule({group}, {resource}, verbs);
    r["resourceNames"] = json::array{json::string(name)};
    return r;
}

}  // namespace

std::vector<json::value> operator_rbac(const std::string &ns, const RbacSubject &subject) {
    const std::string name = "lu-host-operator";
    json::array plurals, statuses;
    for (const std::string_view kind : kTakenKinds) {
        const std::string plural = find_cluster_kind(kind)->plural;
        plurals.emplace_back(plural);
        if (kind == "LiveUpdate" || kind == "KubernetesDiscovery" || kind == "FileWatch")
            statuses.emplace_back(plural + "/status");
    }
    // create cannot be limited by name: the Lease and the trigger queue are created by their name anyway.
    json::array rules{
        named_rule("coordination.k8s.io", "leases", kOperatorLeaseName, {"get", "update", "delete"}),
        rule({"coordination.k8s.io"}, {"leases"}, {"create"}),
        named_rule("", "configmaps", kTriggerQueueConfigMap, {"get", "list", "watch", "update"}),
        rule({""}, {"configmaps"}, {"create"}),
        rule({""}, {"pods"}, {"get", "list", "watch"}),
        rule({""}, {"pods/exec"}, {"get", "create"}),  // get: an exec over WebSocket is a GET
        rule({"apps"}, {"replicasets", "deployments", "statefulsets", "daemonsets"}, {"get"}),
        rule({"batch"}, {"jobs", "cronjobs"}, {"get"}),
        rule({"events.k8s.io"}, {"events"}, {"create", "patch"}),  // a LiveUpdate's Events, repeats counted on one
        json::object{
            {"apiGroups", json::array{kGroup}}, {"resources", plurals}, {"verbs", json::array{"get", "list", "watch"}}},
        json::object{
            {"apiGroups", json::array{kGroup}}, {"resources", statuses}, {"verbs", json::array{"get", "update"}}}};
    return {json::object{{"apiVersion", "rbac.authorization.k8s.io/v1"},
                         {"kind", "Role"},
                         {"metadata", metadata(name, ns)},
                         {"rules", std::move(rules)}},
            binding("RoleBinding", "Role", name, ns, subject)};
}

}  // namespace liveupdate::host::cluster
