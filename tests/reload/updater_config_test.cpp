// The updater configuration: what it accepts, and errors that name the file and the field.
#include <boost/test/unit_test.hpp>

#include "host/reload/updater_config.hpp"

using namespace liveupdate::host::reload;
namespace fs = std::filesystem;

namespace {

const fs::path kFile = "/etc/lu/up.json";

fs::path by_name(std::string_view name) { return "/opt/lu/lib/libupdater_" + std::string(name) + ".so"; }

UpdaterChoices parse(std::string_view text) { return parse_updater_config(text, kFile, by_name); }

// The message of the error parsing text raises ("" when it parses).
std::string error_of(std::string_view text) {
    try {
        parse(text);
    } catch (const UpdaterConfigError &e) {
        return e.what();
    }
    return "";
}

}  // namespace

BOOST_AUTO_TEST_SUITE(updater_config)

BOOST_AUTO_TEST_CASE(names_paths_and_settings) {
    const UpdaterChoices choices = parse(R"({"updaters": {
        "docker": {"plugin": "docker", "settings": {"host": "unix:///run/docker.sock"}},
        "kubernetes": {"plugin": "/srv/plugins/libk8s.so"},
        "local": {"plugin": "plugins/libmine.so", "settings": {}},
        "edge": {"plugin": "../x/liblogging.so"}}})");
    BOOST_TEST_REQUIRE(choices.size() == 4u);
    BOOST_TEST(choices.at("docker").plugin == "/opt/lu/lib/libupdater_docker.so");
    BOOST_TEST(choices.at("docker").settings == R"({"host":"unix:///run/docker.sock"})");
    BOOST_TEST(choices.at("kubernetes").plugin == "/srv/plugins/libk8s.so");
    BOOST_TEST(choices.at("kubernetes").settings == "{}");
    BOOST_TEST(choices.at("local").plugin == "/etc/lu/plugins/libmine.so");
    BOOST_TEST(choices.at("edge").plugin == "/etc/x/liblogging.so");
}

BOOST_AUTO_TEST_CASE(an_empty_set_is_valid) { BOOST_TEST(parse(R"({"updaters": {}})").empty()); }

BOOST_AUTO_TEST_CASE(errors_name_the_file_and_the_field) {
    BOOST_TEST(error_of(R"({"updaters": {"docker": {"plugin": 7}}})") ==
               "invalid updater configuration: /etc/lu/up.json: updaters.docker.plugin: "
               "must be a plugin name or a file path, not a number");
    BOOST_TEST(error_of(R"({"updaters": {"docker": {"plugin": ""}}})") ==
               "invalid updater configuration: /etc/lu/up.json: updaters.docker.plugin: "
               "must be a plugin name or a file path, not empty");
    BOOST_TEST(error_of(R"({"updaters": {"docker": {}}})") ==
               "invalid updater configuration: /etc/lu/up.json: updaters.docker.plugin: missing");
    BOOST_TEST(error_of(R"({"updaters": {"docker": {"plugin": "docker", "setings": {}}}})") ==
               "invalid updater configuration: /etc/lu/up.json: updaters.docker.setings: "
               "unknown key (expected \"plugin\" or \"settings\")");
    BOOST_TEST(error_of(R"({"updaters": {"docker": {"plugin": "docker", "settings": []}}})") ==
               "invalid updater configuration: /etc/lu/up.json: updaters.docker.settings: "
               "must be an object, not an array");
    BOOST_TEST(error_of(R"({"updaters": {"do cker": {"plugin": "docker"}}})") ==
               "invalid updater configuration: /etc/lu/up.json: updaters.do cker: "
               "an updater class is made of letters, digits, '-', '_' and '.'");
    BOOST_TEST(error_of(R"({"updater": {}})") ==
               "invalid updater configuration: /etc/lu/up.json: updater: unknown key (expected \"updaters\")");
    BOOST_TEST(error_of(R"({})") == "invalid updater configuration: /etc/lu/up.json: updaters: missing");
    BOOST_TEST(error_of(R"({"updaters": []})") ==
               "invalid updater configuration: /etc/lu/up.json: updaters: must be an object, not an array");
    BOOST_TEST(error_of(R"([])") == "invalid updater configuration: /etc/lu/up.json: must be an object, not an array");
}

BOOST_AUTO_TEST_CASE(syntax_errors_give_the_line_and_column) {
    const std::string error = error_of("{\"updaters\": {\n  \"docker\": {\"plugin\": \"docker\",}\n}}");
    BOOST_TEST(error.find("invalid updater configuration: /etc/lu/up.json: not valid JSON at line 2, column") == 0u,
               error);
}

BOOST_AUTO_TEST_CASE(an_unreadable_file_is_an_error_naming_it) {
    try {
        load_updater_config("/nonexistent/lu-up.json", by_name);
        BOOST_FAIL("no error");
    } catch (const UpdaterConfigError &e) {
        BOOST_TEST(std::string(e.what()) ==
                   "invalid updater configuration: /nonexistent/lu-up.json: cannot read: No such file or directory");
    }
}

BOOST_AUTO_TEST_SUITE_END()
