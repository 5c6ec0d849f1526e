// Verify's reading of the plugin's sync-targets answer (verify/verify_targets.hpp).
#include <boost/test/unit_test.hpp>

#include "host/verify/verify_targets.hpp"
#include "liveupdate/abi.h"

using namespace liveupdate;
using namespace liveupdate::host::verify;

BOOST_AUTO_TEST_SUITE(verify_targets)

BOOST_AUTO_TEST_CASE(a_document_reads_as_targets) {
    const LiveUpdateTargets t = targets_of_answer("lu", LU_OK, R"({"via":"kubernetes",
        "containers":[{"containerID":"id-1","containerName":"main","podName":"pod-1","namespace":"ns","root":"","display":"pod-1/main"}],
        "targets":[{"local":"/src","container":"/app"}],
        "filter":[{"basePath":"/src","patterns":["*.log"]}]})");
    BOOST_TEST(t.problem == "");
    BOOST_TEST(t.name == "lu");
    BOOST_TEST(t.via == "kubernetes");
    BOOST_REQUIRE_EQUAL(t.containers.size(), 1u);
    BOOST_TEST(t.containers[0].ref.id == "id-1");
    BOOST_TEST(t.containers[0].ref.pod == "pod-1");
    BOOST_TEST(t.containers[0].ref.namespace_name == "ns");
    BOOST_TEST(t.containers[0].display == "pod-1/main");
    BOOST_TEST((t.targets == std::vector<updater::CopyMapping>{{"/src", "/app"}}));
    BOOST_TEST((t.filter == std::vector<common::IgnoreDef>{{"/src", {"*.log"}}}));
}

BOOST_AUTO_TEST_CASE(not_found_points_to_the_list) {
    const LiveUpdateTargets t = targets_of_answer("gone", LU_ERR_NOT_FOUND, "LiveUpdate \"gone\" not found");
    BOOST_TEST(t.problem == "LiveUpdate \"gone\" not found (`lu-host get liveupdates` lists them)");
}

BOOST_AUTO_TEST_CASE(the_plugins_reason_is_the_problem) {
    BOOST_TEST(targets_of_answer("lu", LU_ERR_STATE, "No valid selector").problem == "No valid selector");
    BOOST_TEST(targets_of_answer("lu", LU_ERR_INTERNAL, "").problem.find("result code 5") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(a_malformed_document_names_the_field) {
    const LiveUpdateTargets t = targets_of_answer("lu", LU_OK, R"({"via":"docker","targets":[{"local":1}]})");
    BOOST_TEST(t.problem ==
               "LiveUpdate \"lu\": the plugin's sync targets are malformed: targets[0].local: expected string");
    BOOST_TEST(t.targets.empty());
    BOOST_TEST(targets_of_answer("lu", LU_OK, "[").problem.find("malformed") != std::string::npos);
}

BOOST_AUTO_TEST_SUITE_END()
