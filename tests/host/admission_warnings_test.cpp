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
