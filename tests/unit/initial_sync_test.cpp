#include <boost/test/unit_test.hpp>

#include "plugin/core/initial_sync.hpp"
#include "tests/support/temp_dir.hpp"

using namespace liveupdate;

BOOST_AUTO_TEST_SUITE(initial_sync)

BOOST_AUTO_TEST_CASE(walks_every_sync_path_through_the_filter) {
    test::TempDir dir;
    dir.write("src/a.txt");
    dir.write("src/deep/b.txt");
    dir.write("src/node_modules/x.js");
    dir.write("src/.main.go.swp");
    dir.write("config.yml");
    dir.write("other/c.txt");
    api::LiveUpdateSpec spec;
    spec.base_path = dir.path().string();
    spec.syncs = {{"src", "/app"}, {"config.yml", "/etc/"}, {"missing", "/m"}};
    const auto filter =
        initial_sync_filter({{dir.path().string(), {"**/node_modules"}}, {dir.path().string(), {"src/*.txt", "[bad"}}});
    // The ill-formed definition is dropped; the ephemeral one is added.
    BOOST_REQUIRE_EQUAL(filter.size(), 2u);
    const auto files = collect_initial_sync_files(spec, ignore_set_of(filter));
    BOOST_TEST((files.files == std::vector<std::string>{dir.path().string() + "/config.yml",
                                                        dir.path().string() + "/src/a.txt",
                                                        dir.path().string() + "/src/deep/b.txt"}));
    BOOST_REQUIRE_EQUAL(files.warnings.size(), 1u);
    BOOST_TEST(files.warnings[0].find("does not exist, skipping") != std::string::npos);
}

// One rule set: what the watchers never report, the initial sync never copies.
BOOST_AUTO_TEST_CASE(the_builtin_ignores_of_the_watchers_apply) {
    test::TempDir dir;
    dir.write("src/keep.txt");
    dir.write("src/.git/HEAD");
    dir.write("src/sub/.git/config");
    dir.write("src/notes.swp");
    dir.write("src/.goutputstream-XYZ1");
    dir.write("src/main.c~");
    api::LiveUpdateSpec spec;
    spec.base_path = dir.path().string();
    spec.syncs = {{"src", "/app"}};
    const auto files = collect_initial_sync_files(spec, ignore_set_of(initial_sync_filter({})));
    BOOST_TEST((files.files == std::vector<std::string>{dir.path().string() + "/src/keep.txt"}),
               boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(ignore_without_patterns_covers_its_base_path) {
    test::TempDir dir;
    dir.write("src/a.txt");
    dir.write("src/gen/b.txt");
    api::LiveUpdateSpec spec;
    spec.base_path = dir.path().string();
    spec.syncs = {{"src", "/app"}};
    const auto files =
        collect_initial_sync_files(spec, ignore_set_of(initial_sync_filter({{dir.path().string() + "/src/gen", {}}})));
    BOOST_TEST((files.files == std::vector<std::string>{dir.path().string() + "/src/a.txt"}));
}

BOOST_AUTO_TEST_SUITE_END()
