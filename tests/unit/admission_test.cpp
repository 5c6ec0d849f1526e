#include <boost/test/unit_test.hpp>

#include <string>

#include <boost/json.hpp>

#include "plugin/core/admission.hpp"

using namespace liveupdate;

namespace {

std::string live_update(const std::string &spec) {
    return R"({"apiVersion":"tilt.dev/v1alpha1","kind":"LiveUpdate","metadata":{"name":"lu"},"spec":)" + spec + "}";
}

bool has_field(const AdmissionResult &r, const std::string &field) {
    for (const auto &e : r.errors)
        if (e.field == field) return true;
    return false;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(admission)

BOOST_AUTO_TEST_CASE(valid_live_update_is_accepted) {
    const auto r = admit(live_update(
        R"({"basePath":"/b","selector":{"dockerCompose":{"service":"s"}},"syncs":[{"localPath":".","containerPath":"/app"}],"unknownField":1})"));
    BOOST_TEST(r.accepted, r.message);
    BOOST_TEST(r.kind == "LiveUpdate");
    BOOST_TEST(r.name == "lu");
}

BOOST_AUTO_TEST_CASE(wrong_type_names_the_field_path) {
    const auto r = admit(live_update(
        R"({"selector":{"dockerCompose":{"service":"s"}},"syncs":[{"localPath":".","containerPath":"/a"},{"localPath":".","containerPath":7}]})"));
    BOOST_TEST(!r.accepted);
    BOOST_REQUIRE_EQUAL(r.errors.size(), 1u);
    BOOST_TEST(r.errors[0].field == "spec.syncs[1].containerPath");
    BOOST_TEST(r.errors[0].message == "expected string");
    BOOST_TEST(r.message.find("spec.syncs[1].containerPath: expected string") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(needs_a_sync_or_an_exec) {
    const auto r = admit(live_update(R"({"selector":{"dockerCompose":{"service":"s"}}})"));
    BOOST_TEST(has_field(r, "spec.syncs"));
}

BOOST_AUTO_TEST_CASE(relative_container_path_and_dotdot_and_relative_base) {
    const auto r = admit(live_update(
        R"({"basePath":"rel","selector":{"dockerCompose":{"service":"s"}},"syncs":[{"localPath":".","containerPath":"app"},{"localPath":".","containerPath":"/app/../etc"}]})"));
    BOOST_TEST(has_field(r, "spec.syncs[0]"));
    BOOST_TEST(has_field(r, "spec.syncs[1].containerPath"));
    BOOST_TEST(has_field(r, "spec.basePath"));
    BOOST_TEST(r.errors.size() == 3u);
}

BOOST_AUTO_TEST_CASE(sync_back_patterns_are_checked_and_name_their_index) {
    const auto ok = admit(live_update(
        R"({"basePath":"/b","selector":{"dockerCompose":{"service":"s"}},"syncs":[{"localPath":".","containerPath":"/app","syncBack":["package-lock.json","db/**","!db/tmp"]}]})"));
    BOOST_TEST(ok.accepted, ok.message);
    const auto r = admit(live_update(
        R"({"basePath":"/b","selector":{"dockerCompose":{"service":"s"}},"syncs":[{"localPath":".","containerPath":"/app","syncBack":["ok","/etc/passwd","../x","","[a-","!/abs"]}]})"));
    BOOST_TEST(!r.accepted);
    for (int i = 1; i <= 5; ++i) BOOST_TEST(has_field(r, "spec.syncs[0].syncBack[" + std::to_string(i) + "]"));
    BOOST_TEST(r.errors.size() == 5u);
    const auto typed = admit(live_update(
        R"({"selector":{"dockerCompose":{"service":"s"}},"syncs":[{"localPath":".","containerPath":"/a","syncBack":"x"}]})"));
    BOOST_REQUIRE_EQUAL(typed.errors.size(), 1u);
    BOOST_TEST(typed.errors[0].field == "spec.syncs[0].syncBack");
}

BOOST_AUTO_TEST_CASE(kubernetes_selector_rules_each_extra_is_an_error) {
    const auto r = admit(live_update(
        R"({"selector":{"kubernetes":{"image":"a","containerName":"b","imageMapName":"c"}},"execs":[{"args":["x"]}]})"));
    BOOST_TEST(has_field(r, "spec.selector.kubernetes.discoveryName"));
    BOOST_TEST(has_field(r, "spec.selector.kubernetes.image"));
    BOOST_TEST(has_field(r, "spec.selector.kubernetes.containerName"));
    BOOST_TEST(has_field(r, "spec.selector.kubernetes.imageMap"));
    BOOST_TEST(r.errors.size() == 4u);
    const auto none =
        admit(live_update(R"({"selector":{"kubernetes":{"discoveryName":"kd"}},"execs":[{"args":["x"]}]})"));
    BOOST_TEST(has_field(none, "spec.selector.kubernetes"));
}

BOOST_AUTO_TEST_CASE(compose_and_local_selectors_need_their_name) {
    BOOST_TEST(has_field(admit(live_update(R"({"selector":{"dockerCompose":{}},"execs":[{"args":["x"]}]})")),
                         "spec.selector.dockerCompose.service"));
    BOOST_TEST(has_field(admit(live_update(R"({"selector":{"local":{}},"execs":[{"args":["x"]}]})")),
                         "spec.selector.local.container"));
    BOOST_TEST(admit(live_update(R"({"execs":[{"args":["x"]}]})")).accepted);
}

BOOST_AUTO_TEST_CASE(unknown_kind_malformed_and_deep_documents_are_refused) {
    const auto unknown = admit(R"({"kind":"Pod","metadata":{"name":"x"}})");
    BOOST_TEST(!unknown.accepted);
    BOOST_TEST(unknown.errors[0].field == "kind");
    BOOST_TEST(!admit("{not json").accepted);
    std::string deep(100000, '[');
    const auto d = admit(deep);
    BOOST_TEST(!d.accepted);
    BOOST_TEST(d.message.find("nested deeper") != std::string::npos, d.message);
    BOOST_TEST(admit(R"({"kind":"FileWatch","metadata":{}})").errors[0].field == "metadata.name");
}

BOOST_AUTO_TEST_CASE(other_kinds_check_types_too) {
    const auto r =
        admit(R"({"kind":"FileWatch","metadata":{"name":"fw"},"status":{"fileEvents":[{"time":"yesterday"}]}})");
    BOOST_TEST(!r.accepted);
    BOOST_TEST(r.errors[0].field == "status.fileEvents[0].time");
    const auto lc = admit(
        R"({"apiVersion":"liveupdate.dev/v1alpha1","kind":"LocalContainer","metadata":{"name":"l"},"spec":{"root":"/r","command":"sh"}})");
    BOOST_TEST(lc.errors[0].field == "spec.command");
}

// Names are Kubernetes' path segment names, as Tilt's API server admits them
// (Tilt's own names hold ':' and '_': "frontend:image:gcr.io_foo").
BOOST_AUTO_TEST_CASE(every_kind_refuses_a_name_that_is_no_path_segment) {
    const std::string html = "<script>alert(4)</script>";
    for (const char *kind : {"LiveUpdate", "FileWatch", "ImageMap", "KubernetesDiscovery", "KubernetesApply",
                             "DockerComposeService", "ConfigMap", "LocalContainer"}) {
        const boost::json::object object{
            {"apiVersion", std::string(kind) == "LocalContainer" ? "liveupdate.dev/v1alpha1" : "tilt.dev/v1alpha1"},
            {"kind", kind},
            {"metadata", {{"name", html}}},
            {"spec", {{"syncs", boost::json::array{{{"containerPath", "/app"}}}}}}};
        const auto r = admit(boost::json::serialize(object));
        BOOST_TEST(!r.accepted, kind);
        BOOST_TEST(has_field(r, "metadata.name"), kind);
        BOOST_TEST(r.message.find("metadata.name: Invalid value: \"<script>alert(4)</script>\"") != std::string::npos,
                   r.message);
    }
}

BOOST_AUTO_TEST_CASE(names_follow_the_path_segment_rule) {
    const auto name_error = [](const std::string &name) {
        const auto r = admit(R"({"kind":"ConfigMap","metadata":{"name":)" +
                             boost::json::serialize(boost::json::string(name)) + "}}");
        return r.accepted ? std::string() : r.message;
    };
    for (const std::string &ok : {std::string("frontend:image:gcr.io_foo"), std::string("configs:(Tiltfile)"),
                                  std::string("(Tiltfile)"), std::string("Web_1"), std::string(253, 'n')})
        BOOST_TEST(name_error(ok).empty(), ok);
    BOOST_TEST(name_error(".").find("may not be '.'") != std::string::npos, name_error("."));
    BOOST_TEST(name_error("..").find("may not be '..'") != std::string::npos);
    BOOST_TEST(name_error("a/b").find("may not contain '/'") != std::string::npos);
    BOOST_TEST(name_error("a%2Fb").find("may not contain '%'") != std::string::npos);
    BOOST_TEST(name_error(std::string(254, 'n')).find("must be no more than 253 characters") != std::string::npos);
}

BOOST_AUTO_TEST_SUITE_END()
