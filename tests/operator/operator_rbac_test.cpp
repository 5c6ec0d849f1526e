#include <boost/test/unit_test.hpp>

#include "host/cluster/operator_rbac.hpp"

using namespace liveupdate::host::cluster;
namespace json = boost::json;

namespace {

const json::object *rule_for(const json::array &rules, std::string_view resource) {
    for (const auto &r : rules)
        for (const auto &res : r.at("resources").as_array())
            if (res.as_string() == resource) return &r.as_object();
    return nullptr;
}

json::array verbs_of(const json::object *rule) {
    return rule != nullptr ? rule->at("verbs").as_array() : json::array{};
}

}  // namespace

BOOST_AUTO_TEST_SUITE(operator_rbac_rules)

// The CRDs are Namespaced: one Role of the namespace is enough, nothing cluster-wide.
BOOST_AUTO_TEST_CASE(one_role_and_its_binding_in_the_namespace) {
    const auto objects = operator_rbac("team", RbacSubject{RbacSubject::Kind::user, "dev", ""});
    BOOST_TEST_REQUIRE(objects.size() == 2u);
    BOOST_TEST(objects[0].at("kind").as_string() == "Role");
    BOOST_TEST(objects[1].at("kind").as_string() == "RoleBinding");
    for (const auto &o : objects) BOOST_TEST(o.at("metadata").at("namespace").as_string() == "team");
    BOOST_TEST(objects[1].at("roleRef").at("kind").as_string() == "Role");
    BOOST_TEST(objects[1].at("subjects").at(0).at("name").as_string() == "dev");
}

BOOST_AUTO_TEST_CASE(the_role_reads_the_kinds_writes_their_status_and_the_trigger_queue) {
    const auto objects = operator_rbac("team", RbacSubject{});
    const json::array &rules = objects[0].at("rules").as_array();
    BOOST_TEST(verbs_of(rule_for(rules, "liveupdates")) == (json::array{"get", "list", "watch"}));
    BOOST_TEST(verbs_of(rule_for(rules, "liveupdates/status")) == (json::array{"get", "update"}));
    BOOST_TEST(verbs_of(rule_for(rules, "kubernetesdiscoverys/status")) == (json::array{"get", "update"}));
    // An exec over WebSocket (kubectl 1.32, the kubernetes updater) is a GET that also needs create.
    BOOST_TEST(verbs_of(rule_for(rules, "pods/exec")) == (json::array{"get", "create"}));
    const json::object *queue = rule_for(rules, "configmaps");
    BOOST_TEST_REQUIRE(queue != nullptr);
    BOOST_TEST(queue->at("resourceNames") == json::array{"tilt-trigger-queue"});
    BOOST_TEST(verbs_of(queue) == (json::array{"get", "list", "watch", "update"}));
    // A LiveUpdate's Events: created, then their series patched.
    const json::object *events = rule_for(rules, "events");
    BOOST_TEST_REQUIRE(events != nullptr);
    BOOST_TEST(events->at("apiGroups") == json::array{"events.k8s.io"});
    BOOST_TEST(verbs_of(events) == (json::array{"create", "patch"}));
    // Nothing that writes a spec or deletes a pod.
    for (const auto &r : rules)
        for (const auto &verb : r.at("verbs").as_array())
            if (verb == "update")
                BOOST_TEST((r.at("resources").at(0).as_string().ends_with("/status") ||
                            r.as_object().contains("resourceNames")));
}

BOOST_AUTO_TEST_SUITE_END()
