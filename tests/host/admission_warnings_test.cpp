#include <boost/test/unit_test.hpp>

#include <string>
#include <vector>

#include "host/core/admission_warnings.hpp"

using namespace liveupdate::host;

BOOST_AUTO_TEST_CASE(admission_warns_of_a_sync_outside_the_base_and_a_root_container) {
    const auto lu = boost::json::parse(R"({"kind": "LiveUpdate", "metadata": {"name": "lu"}, "spec": {
        "basePath": "/repo/app", "syncs": [{"localPath": "src", "containerPath": "/app"},
        {"localPath": "/repo/app/lib", "containerPath": "/lib"}, {"localPath": "../shared", "containerPath": "/s"},
        {"localPath": "/etc", "containerPath": "/e"}]}})")
                        .as_object();
    const auto warnings = admission_warnings(lu);
    BOOST_TEST_REQUIRE(warnings.size() == 2u);
    BOOST_TEST(warnings[0].find("spec.syncs[2].localPath /repo/shared is outside spec.basePath /repo/app") == 0u,
               warnings[0]);
    BOOST_TEST(warnings[1].find("spec.syncs[3].localPath /etc is outside") == 0u, warnings[1]);

    const auto root = boost::json::parse(R"({"kind": "LocalContainer", "metadata": {"name": "c"},
        "spec": {"root": "/"}})")
                          .as_object();
    BOOST_TEST(admission_warnings(root).size() == 1u);
    const auto boxed = boost::json::parse(R"({"kind": "LocalContainer", "metadata": {"name": "c"},
        "spec": {"root": "/srv/box"}})")
                           .as_object();
    BOOST_TEST(admission_warnings(boxed).empty());
}

// The warnings are read before the plugin's admission, which names a member of
// another type: here such an object has no warning, and is no error.
BOOST_AUTO_TEST_CASE(admission_warnings_pass_over_members_of_another_type) {
    for (const char *text : {
             R"({"kind": "LiveUpdate", "spec": {"basePath": 5, "syncs": [{"localPath": "/etc"}]}})",
             R"({"kind": "LiveUpdate", "spec": {"basePath": "/repo", "syncs": [5, {"localPath": 7}]}})",
             R"({"kind": "LiveUpdate", "spec": {"basePath": "/repo", "syncs": {"localPath": "/etc"}}})",
             R"({"kind": "LiveUpdate", "spec": "everything"})",
             R"({"kind": ["LiveUpdate"], "spec": {}})",
             R"({"kind": "LocalContainer", "spec": {"root": ["/"]}})",
         }) {
        const auto object = boost::json::parse(text).as_object();
        std::vector<std::string> warnings{"not read"};
        BOOST_CHECK_NO_THROW(warnings = admission_warnings(object));
        BOOST_TEST(warnings.empty(), text);
    }
}
