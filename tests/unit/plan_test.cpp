#include <unistd.h>

#include <boost/test/unit_test.hpp>

#include "common/paths.hpp"
#include "plugin/core/plan.hpp"
#include "tests/support/temp_dir.hpp"

using namespace liveupdate;

BOOST_AUTO_TEST_SUITE(plan)

BOOST_AUTO_TEST_CASE(unmatched_file_stops_the_update) {
    test::TempDir dir;
    api::LiveUpdateSpec spec;
    spec.base_path = dir.path().string();
    spec.syncs = {{"src", "/app"}};
    const auto result = create_plan(spec, {dir.path().string() + "/README.md"});
    BOOST_REQUIRE(result.failed);
    BOOST_TEST(result.failed->reason == "UpdateStopped");
    BOOST_TEST(result.failed->message ==
               "Found file(s) not matching any sync (files: [" + dir.path().string() + "/README.md])");
}

BOOST_AUTO_TEST_CASE(unmatched_list_is_cut_after_five) {
    test::TempDir dir;
    api::LiveUpdateSpec spec;
    spec.base_path = dir.path().string();
    spec.syncs = {{"src", "/app"}};
    std::vector<std::string> files;
    files.reserve(7);
    for (int i = 0; i < 7; ++i) files.push_back("/x/" + std::to_string(i));
    const auto result = create_plan(spec, files);
    BOOST_TEST(result.failed->message == "Found file(s) not matching any sync (files: [/x/0 /x/1 /x/2 /x/3 /x/4 ...])");
}

BOOST_AUTO_TEST_CASE(stop_path_matches_file_or_anything_beneath) {
    const std::vector<std::string> stops{"package.json", "deps"};
    BOOST_TEST(common::matches_file_or_child(stops, "/b", "/b/package.json"));
    BOOST_TEST(common::matches_file_or_child(stops, "/b", "/b/deps/x/y"));
    BOOST_TEST(!common::matches_file_or_child(stops, "/b", "/b/src/package.json"));
    BOOST_TEST(!common::matches_file_or_child(stops, "/b", "/b/deps2"));
}

BOOST_AUTO_TEST_CASE(stop_path_change_stops_with_its_name) {
    test::TempDir dir;
    dir.write("package.json");
    api::LiveUpdateSpec spec;
    spec.base_path = dir.path().string();
    spec.syncs = {{".", "/app"}};
    spec.stop_paths = {"package.json"};
    const auto result = create_plan(spec, {dir.path().string() + "/package.json"});
    BOOST_REQUIRE(result.failed);
    BOOST_TEST(result.failed->message == "Detected change to stop file \"" + dir.path().string() + "/package.json\"");
}

BOOST_AUTO_TEST_CASE(execs_run_only_when_a_trigger_matches) {
    api::LiveUpdateSpec spec;
    spec.base_path = "/b";
    spec.execs = {{{"always"}, {}, false}, {{"deps"}, {"requirements.txt"}, true}, {{"gen"}, {"proto"}, false}};
    const auto runs = boil_runs(spec, {{"/b/proto/x.proto", "/app/proto/x.proto"}});
    BOOST_REQUIRE_EQUAL(runs.size(), 2u);
    BOOST_TEST(runs[0].argv[0] == "always");
    BOOST_TEST(runs[1].argv[0] == "gen");
    const auto with_deps = boil_runs(spec, {{"/b/requirements.txt", "/app/requirements.txt"}});
    BOOST_REQUIRE_EQUAL(with_deps.size(), 2u);
    BOOST_TEST(with_deps[1].argv[0] == "deps");
    BOOST_TEST(with_deps[1].echo_off);
}

BOOST_AUTO_TEST_CASE(runs_of_local_paths_trigger_as_their_mappings_do) {
    api::LiveUpdateSpec spec;
    spec.base_path = "/b";
    spec.execs = {{{"always"}, {}, false}, {{"deps"}, {"requirements.txt"}, true}, {{"gen"}, {"proto"}, false}};
    const auto runs = boil_runs_of_local_paths(spec, {"/b/a.txt", "/b/proto/x.proto"});
    BOOST_REQUIRE_EQUAL(runs.size(), 2u);
    BOOST_TEST(runs[0].argv[0] == "always");
    BOOST_TEST(runs[1].argv[0] == "gen");
    BOOST_TEST(boil_runs_of_local_paths(spec, {}).size() == 1u);
}

// An initial sync's plan: the same decisions, no mapping held per file.
BOOST_AUTO_TEST_CASE(a_plan_that_only_counts_maps_no_file_and_decides_the_same) {
    test::TempDir dir;
    dir.write("src/a.txt");
    dir.write("src/b/c.txt");
    dir.write("package.json");
    api::LiveUpdateSpec spec;
    spec.base_path = dir.path().string();
    spec.syncs = {{"src", "/app"}, {"package.json", "/app/"}};
    const std::vector<std::string> files{dir.path().string() + "/package.json", dir.path().string() + "/src/a.txt",
                                         dir.path().string() + "/src/b/c.txt"};
    const auto mapped = create_plan(spec, files);
    const auto counted = create_plan(spec, files, PlanMappings::count_only);
    BOOST_TEST(!counted.failed);
    BOOST_TEST(mapped.plan.sync_paths.size() == 3u);
    BOOST_TEST(mapped.plan.synced == 3u);
    BOOST_TEST(counted.plan.synced == 3u);
    BOOST_TEST(counted.plan.sync_paths.empty());
    spec.stop_paths = {"package.json"};
    const auto stopped = create_plan(spec, files, PlanMappings::count_only);
    BOOST_REQUIRE(stopped.failed);
    BOOST_TEST(stopped.failed->message == create_plan(spec, files).failed->message);
}

BOOST_AUTO_TEST_CASE(split_copies_existing_and_deletes_missing_sorted_unique) {
    test::TempDir dir;
    const auto b = dir.write("b.txt");
    const auto a = dir.write("a.txt");
    const auto gone = dir.path().string() + "/gone.txt";
    const auto split = split_by_existence(
        {{b, "/app/b.txt"}, {gone, "/app/gone.txt"}, {a, "/app/a.txt"}, {b, "/app/b.txt"}, {gone, "/app/gone.txt"}});
    BOOST_REQUIRE_EQUAL(split.to_copy.size(), 2u);
    BOOST_TEST(split.to_copy[0].container_path == "/app/a.txt");
    BOOST_TEST(split.to_copy[1].container_path == "/app/b.txt");
    BOOST_REQUIRE_EQUAL(split.to_delete.size(), 1u);
    BOOST_TEST(split.to_delete[0].container_path == "/app/gone.txt");
}

// A path beneath a local symlink is no entry of the tree (tar never descends
// into a link): a folder replaced by `d -> .` leaves its old paths deleted,
// not copied again through the link.
BOOST_AUTO_TEST_CASE(split_deletes_a_path_beneath_a_local_symlink) {
    test::TempDir dir;
    const auto c = dir.write("c");
    const auto d = dir.path().string() + "/d";
    BOOST_REQUIRE(::symlink(".", d.c_str()) == 0);
    const std::vector<updater::CopyMapping> rules{{dir.path().string(), "/app"}};
    const auto split = split_by_existence({{d, "/app/d"}, {d + "/c", "/app/d/c"}, {c, "/app/c"}}, rules);
    BOOST_REQUIRE_EQUAL(split.to_copy.size(), 2u);
    BOOST_TEST(split.to_copy[0].container_path == "/app/c");
    BOOST_TEST(split.to_copy[1].container_path == "/app/d");
    BOOST_REQUIRE_EQUAL(split.to_delete.size(), 1u);
    BOOST_TEST(split.to_delete[0].container_path == "/app/d/c");
}

// A symlink is an entry of its own, as tar makes it: never followed, so a loop
// or a dangling link is copied as a link, not reported missing.
BOOST_AUTO_TEST_CASE(split_copies_symlink_loops_and_dangling_links_as_links) {
    test::TempDir dir;
    const auto kept = dir.write("kept.txt");
    const auto self = dir.path().string() + "/loop";
    const auto a = dir.path().string() + "/a";
    const auto b = dir.path().string() + "/b";
    const auto dangling = dir.path().string() + "/dangling";
    BOOST_REQUIRE(::symlink("loop", self.c_str()) == 0);
    BOOST_REQUIRE(::symlink("b", a.c_str()) == 0);
    BOOST_REQUIRE(::symlink("a", b.c_str()) == 0);
    BOOST_REQUIRE(::symlink("nowhere", dangling.c_str()) == 0);
    const auto split = split_by_existence({{self, "/app/loop"},
                                           {a, "/app/a"},
                                           {b, "/app/b"},
                                           {dangling, "/app/dangling"},
                                           {kept, "/app/kept.txt"},
                                           {self + "/x", "/app/loop/x"}});
    BOOST_REQUIRE_EQUAL(split.to_copy.size(), 5u);
    BOOST_TEST(split.to_copy[0].container_path == "/app/a");
    BOOST_TEST(split.to_copy[4].container_path == "/app/loop");
    BOOST_REQUIRE_EQUAL(split.to_delete.size(), 1u);
    BOOST_TEST(split.to_delete[0].container_path == "/app/loop/x");
}

BOOST_AUTO_TEST_CASE(plan_maps_a_file_beside_a_symlink_loop_rule) {
    test::TempDir dir;
    const auto loop = dir.path().string() + "/loop";
    BOOST_REQUIRE(::symlink("loop", loop.c_str()) == 0);
    api::LiveUpdateSpec spec;
    spec.base_path = dir.path().string();
    spec.syncs = {{"loop", "/app/"}};
    const auto result = create_plan(spec, {loop});
    BOOST_REQUIRE(!result.failed);
    BOOST_REQUIRE_EQUAL(result.plan.sync_paths.size(), 1u);
    BOOST_TEST(result.plan.sync_paths[0].container_path == "/app/loop");
}

BOOST_AUTO_TEST_SUITE_END()
