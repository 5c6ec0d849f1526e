#include <boost/test/unit_test.hpp>

#include "common/paths.hpp"
#include "plugin/core/plan.hpp"
#include "tests/support/temp_dir.hpp"

using namespace liveupdate;

namespace {

api::LiveUpdateSpec spec_with(const std::string &base, std::vector<api::LiveUpdateSync> syncs) {
    api::LiveUpdateSpec spec;
    spec.base_path = base;
    spec.syncs = std::move(syncs);
    return spec;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(path_mapping)

BOOST_AUTO_TEST_CASE(local_path_resolves_against_base_path) {
    const auto rules = sync_rules(spec_with("/base", {{"src", "/app"}, {"/abs/dir", "/other"}}));
    BOOST_REQUIRE_EQUAL(rules.size(), 2u);
    BOOST_TEST(rules[0].local_path == "/base/src");
    BOOST_TEST(rules[1].local_path == "/abs/dir");
}

BOOST_AUTO_TEST_CASE(file_under_directory_rule_keeps_its_relative_path) {
    test::TempDir dir;
    dir.write("src/pkg/a.go");
    const auto result =
        create_plan(spec_with(dir.path().string(), {{"src", "/app"}}), {dir.path().string() + "/src/pkg/a.go"});
    BOOST_REQUIRE(!result.failed);
    BOOST_REQUIRE_EQUAL(result.plan.sync_paths.size(), 1u);
    BOOST_TEST(result.plan.sync_paths[0].container_path == "/app/pkg/a.go");
}

BOOST_AUTO_TEST_CASE(first_matching_rule_wins) {
    test::TempDir dir;
    dir.write("src/a.txt");
    const auto result = create_plan(spec_with(dir.path().string(), {{"src", "/first"}, {".", "/second"}}),
                                    {dir.path().string() + "/src/a.txt"});
    BOOST_REQUIRE_EQUAL(result.plan.sync_paths.size(), 1u);
    BOOST_TEST(result.plan.sync_paths[0].container_path == "/first/a.txt");
}

BOOST_AUTO_TEST_CASE(file_rule_with_trailing_slash_maps_into_the_directory) {
    test::TempDir dir;
    dir.write("config.yml");
    const auto into = create_plan(spec_with(dir.path().string(), {{"config.yml", "/etc/app/"}}),
                                  {dir.path().string() + "/config.yml"});
    BOOST_REQUIRE_EQUAL(into.plan.sync_paths.size(), 1u);
    BOOST_TEST(into.plan.sync_paths[0].container_path == "/etc/app/config.yml");
    const auto exact = create_plan(spec_with(dir.path().string(), {{"config.yml", "/etc/app.yml"}}),
                                   {dir.path().string() + "/config.yml"});
    BOOST_TEST(exact.plan.sync_paths[0].container_path == "/etc/app.yml");
}

BOOST_AUTO_TEST_CASE(sibling_with_common_prefix_is_not_a_child) {
    BOOST_TEST(!common::child_path("/base/src", "/base/src2/a.txt"));
    BOOST_TEST(*common::child_path("/base/src", "/base/src/a.txt") == "a.txt");
    BOOST_TEST(*common::child_path("/base/src", "/base/src") == ".");
    BOOST_TEST(*common::child_path("/", "/etc/x") == "etc/x");
}

BOOST_AUTO_TEST_CASE(deleted_sync_root_is_a_plan_error) {
    const auto result =
        create_plan(spec_with("/nonexistent-lu-base", {{"src", "/app"}}), {"/nonexistent-lu-base/src/a"});
    BOOST_REQUIRE(result.failed);
    BOOST_TEST(result.failed->message.find("No update plan: error stat'ing") == 0);
}

BOOST_AUTO_TEST_SUITE_END()
