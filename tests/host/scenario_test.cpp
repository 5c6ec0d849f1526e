#include <map>

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

// Reads included files from a map, as the runner reads them from the disk.
IncludeReader reader_of(std::map<std::string, std::string> files) {
    return [files = std::move(files)](const std::filesystem::path &path) {
        auto found = files.find(path.string());
        if (found == files.end()) throw std::runtime_error("no such file");
        return found->second;
    };
}

std::string include_error_of(std::string_view text, std::map<std::string, std::string> files) {
    try {
        parse_scenario(text, "/r", "dir/s.json", reader_of(std::move(files)));
    } catch (const ScenarioError &e) {
        return e.what();
    }
    return "";
}

constexpr std::string_view kClock = R"("clock": "2026-01-01T00:00:00.000000Z")";

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
               "step 0: updater[0].ok: must be true");
}

BOOST_AUTO_TEST_CASE(an_include_splices_the_steps_of_its_file_where_it_stands) {
    const Scenario s = parse_scenario(
        std::string("{") + std::string(kClock) + R"(, "steps": [{"reconcile": "a"}, {"include": "fx/two.json"},
                                                  {"reconcile": "d"}]})",
        "/r", "dir/s.json",
        reader_of({{"dir/fx/two.json", R"({"description": "d", "steps": [{"reconcile": "${ROOT}/b"},
                                                                      {"include": "../one.json"}]})"},
                   {"dir/one.json", R"({"steps": [{"reconcile": "c"}]})"}}));
    std::vector<std::string> names;
    std::vector<std::string> wheres;
    for (const ScenarioStep &step : s.steps) {
        names.emplace_back(step.value.as_string());
        wheres.push_back(step.where);
    }
    BOOST_TEST(names == (std::vector<std::string>{"a", "/r/b", "c", "d"}), boost::test_tools::per_element());
    BOOST_TEST(wheres == (std::vector<std::string>{"step 0", "step 1: include fx/two.json: step 0",
                                                   "step 1: include fx/two.json: step 1: include ../one.json: step 0",
                                                   "step 2"}),
               boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(an_applied_include_is_its_object_merge_patched) {
    const Scenario s = parse_scenario(
        std::string("{") + std::string(kClock) +
            R"(, "steps": [{"apply": {"$include": "o.json", "spec": {"a": 2, "gone": null, "list": [3]}}}]})",
        "/r", "s.json",
        reader_of({{"o.json", R"({"$include": "base.json", "kind": "K", "spec": {"keep": "${ROOT}", "a": 1}})"},
                   {"base.json", R"({"apiVersion": "v", "spec": {"gone": 1, "list": [1, 2]}})"}}));
    BOOST_TEST(
        s.steps.at(0).value == json::parse(R"({"apiVersion":"v","spec":{"list":[3],"keep":"/r","a":2},"kind":"K"})"),
        json::serialize(s.steps.at(0).value));
}

BOOST_AUTO_TEST_CASE(bad_includes_name_the_file_and_the_field) {
    const std::string head = std::string("{") + std::string(kClock) + R"(, "steps": [)";
    BOOST_TEST(include_error_of(head + R"({"include": "x.json"}]})", {}) ==
               "step 0: include: dir/x.json: no such file");
    BOOST_TEST(include_error_of(head + R"({"include": ""}]})", {}) ==
               "step 0: include: expected a file name, got \"\"");
    BOOST_TEST(include_error_of(head + R"({"include": "x.json"}]})", {{"dir/x.json", "{"}}) ==
               "step 0: include: dir/x.json: invalid JSON at line 1, column 2: incomplete JSON");
    BOOST_TEST(include_error_of(head + R"({"include": "x.json"}]})", {{"dir/x.json", R"({"step": []})"}}) ==
               "step 0: include x.json: a fixture has only \"description\" and \"steps\", got \"step\"");
    BOOST_TEST(include_error_of(head + R"({"include": "x.json"}]})", {{"dir/x.json", R"({})"}}) ==
               "step 0: include x.json: missing \"steps\"");
    BOOST_TEST(include_error_of(head + R"({"include": "x.json"}]})", {{"dir/x.json", R"({"steps": [{"nap": 1}]})"}}) ==
               "step 0: include x.json: step 0: unknown step \"nap\"");
    BOOST_TEST(include_error_of(head + R"({"apply": {"$include": 1}}]})", {}) ==
               "step 0: apply.$include: expected a file name, got 1");
    BOOST_TEST(include_error_of(head + R"({"include": "s.json"}]})", {{"dir/s.json", "{}"}}) ==
               "step 0: include: an include cycle: dir/s.json -> dir/s.json");
    BOOST_TEST(include_error_of(head + R"({"apply": {"$include": "o.json"}}]})",
                                {{"dir/o.json", R"({"$include": "./o.json"})"}}) ==
               "step 0: apply.$include o.json.$include: an include cycle: dir/s.json -> dir/o.json -> dir/o.json");
    BOOST_TEST(error_of(head + R"({"include": "x.json"}]})") ==
               "step 0: include: includes need a scenario read from a file");
}

BOOST_AUTO_TEST_CASE(includes_that_never_end_are_refused_not_followed) {
    // Every file includes one a folder deeper: no path repeats, so only the depth ends it.
    const IncludeReader deeper = [](const std::filesystem::path &) {
        return std::string(R"({"steps": [{"include": "d/x.json"}]})");
    };
    std::string error;
    try {
        parse_scenario(std::string("{") + std::string(kClock) + R"(, "steps": [{"include": "x.json"}]})", "/r",
                       "s.json", deeper);
    } catch (const ScenarioError &e) {
        error = e.what();
    }
    BOOST_TEST(error.ends_with("step 0: include: includes nested deeper than 16"));
}

BOOST_AUTO_TEST_SUITE_END()
