#include <boost/test/unit_test.hpp>

#include "host/replay/scenario.hpp"

using namespace liveupdate::host::replay;
namespace json = boost::json;

namespace {

std::string error_of(std::string_view text) {
    try {
        parse_scenario(text, "/r");
    } catch (const ScenarioError &e) {
        return e.what();
    }
    return "";
}

}  // namespace

BOOST_AUTO_TEST_SUITE(scenario)

BOOST_AUTO_TEST_CASE(root_is_substituted_in_strings_and_keys) {
    const Scenario s = parse_scenario(
        R"({"clock": "2026-01-01T00:00:00.000000Z", "files": {"a": "${ROOT}/x"},
            "steps": [{"expect": {"objects": {"K/${ROOT}": {"p": ["${ROOT}${ROOT}"]}}}}]})",
        "/tmp/r");
    BOOST_TEST(s.files.at(0).second == "/tmp/r/x");
    BOOST_TEST(json::serialize(s.steps.at(0).value) == R"({"objects":{"K//tmp/r":{"p":["/tmp/r/tmp/r"]}}})");
    BOOST_TEST(s.clock.format() == "2026-01-01T00:00:00.000000Z");
}

BOOST_AUTO_TEST_CASE(every_step_kind_parses) {
    const Scenario s = parse_scenario(R"({"clock": "2026-01-01T00:00:00.000000Z", "steps": [
        {"apply": {"kind": "FileWatch"}}, {"delete": {"kind": "K", "name": "n"}},
        {"clock": "2026-01-01T00:00:01.000000Z"}, {"write": {"a/b": "c"}}, {"remove": ["a"]},
        {"fileEvent": {"fileWatch": "fw", "time": "2026-01-01T00:00:01.000000Z", "paths": ["/a"]}},
        {"reconcile": "lu"}, {"updater": [{"ok": true}, {"runFailure": {"message": "m", "exitCode": 1}},
                                          {"infraFailure": "x"}]},
        {"reload": {}}, {"expect": {"calls": [], "events": {"$len": 0}, "log": {"contains": ["a"]},
                                    "statusWrites": {"lu": 1}, "admission": {"rejected": false},
                                    "status": {"lu": {}}, "objects": {"K/n": {"$absent": true}}}}]})",
                                      "/r");
    BOOST_TEST(s.steps.size() == 10u);
    BOOST_TEST(s.steps.at(6).key == "reconcile");
}

BOOST_AUTO_TEST_CASE(malformed_files_say_where_and_why) {
    BOOST_TEST(error_of("{") == "invalid JSON at line 1, column 2: incomplete JSON");
    BOOST_TEST(error_of("[]") == "a scenario is a JSON object");
    BOOST_TEST(error_of(R"({"steps": []})") == "scenario: missing \"clock\"");
    BOOST_TEST(error_of(R"({"clock": "2026-01-01T00:00:00.000000Z"})") == "scenario: missing \"steps\"");
    BOOST_TEST(error_of(R"({"clock": "2026-01-01T00:00:00.000000Z", "steps": [{"nap": 1}]})") ==
               "step 0: unknown step \"nap\"");
    BOOST_TEST(error_of(R"({"clock": "2026-01-01T00:00:00.000000Z", "steps": [{"reconcile": 1}]})") ==
               "step 0: reconcile: expected a string, got 1");
    BOOST_TEST(error_of(R"({"clock": "2026-01-01T00:00:00.000000Z", "steps": [{"remove": ["/etc"]}]})") ==
               "step 0: remove: expected a path relative to ${ROOT}");
    BOOST_TEST(error_of(R"({"clock": "2026-01-01T00:00:00.000000Z", "steps": [{"delete": {"kind": "K"}}]})") ==
               "step 0: delete: needs \"name\"");
    BOOST_TEST(error_of(R"({"clock": "2026-01-01T00:00:00.000000Z", "steps": [{"expect": {"log": {"has": []}}}]})") ==
               "step 0: expect.log: only \"contains\" and \"excludes\", got \"has\"");
    BOOST_TEST(error_of(R"({"clock": "2026-01-01T00:00:00.000000Z", "steps": [{"expect": {"objects": {"x": 1}}}]})") ==
               "step 0: expect.objects: keys are \"<Kind>/<name>\", got \"x\"");
    BOOST_TEST(error_of(R"({"clock": "2026-01-01T00:00:00.000000Z", "steps": [{"updater": [{"ok": false}]}]})") ==
               "step 0: updater[0]: \"ok\" must be true");
}

BOOST_AUTO_TEST_SUITE_END()
