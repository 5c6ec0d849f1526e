// The plugin file watcher on real files: a file written in place, renamed
// over, or deleted and created again is reported once it settles; other
// files in the folder are not.
#include <unistd.h>

#include <algorithm>

#include <boost/test/unit_test.hpp>

#include "host/reload/plugin_file_watcher.hpp"
#include "tests/reload/reload_test_support.hpp"

using namespace reload_test;
using liveupdate::host::reload::PluginFileWatcher;
using namespace std::chrono_literals;

namespace {

struct Fixture {
    TempDir dir;
    fs::path plugin = dir / "libplugin.so";
    fs::path other = dir / "libother.so";
    std::mutex mutex;
    std::vector<fs::path> reported;
    std::vector<std::string> warnings;
    // Settle time: long enough that a busy CI machine pausing this thread
    // between the pieces of one write does not split it into two reports.
    PluginFileWatcher watcher{100ms,
                              [this](const fs::path &file) {
                                  std::lock_guard lock(mutex);
                                  reported.push_back(file);
                              },
                              [this](const std::string &warning) {
                                  std::lock_guard lock(mutex);
                                  warnings.push_back(warning);
                              }};

    Fixture() {
        write_file(plugin, "v1");
        write_file(other, "v1");
        watcher.watch({plugin});
    }

    std::size_t count() {
        std::lock_guard lock(mutex);
        return reported.size();
    }
    bool has_reported(const fs::path &file) {
        std::lock_guard lock(mutex);
        return std::find(reported.begin(), reported.end(), file) != reported.end();
    }
    std::vector<fs::path> taken() {
        std::lock_guard lock(mutex);
        return std::exchange(reported, {});
    }
};

}  // namespace

BOOST_FIXTURE_TEST_SUITE(plugin_file_watcher, Fixture)

BOOST_AUTO_TEST_CASE(a_file_written_in_place_is_reported_once) {
    watcher.watch({plugin, other});
    // Several writes in a row (a linker writing in pieces) make one report.
    {
        std::ofstream out(plugin, std::ios::binary | std::ios::trunc);
        for (int i = 0; i < 5; ++i) out << "part " << i << std::flush;
    }
    BOOST_TEST_REQUIRE(wait_until([&] { return count() >= 1; }));
    // A later write of another file: its report comes after any duplicate of the first.
    write_file(other, "marker");
    BOOST_TEST_REQUIRE(wait_until([&] { return has_reported(other); }));
    BOOST_TEST((taken() == std::vector<fs::path>{plugin, other}));
}

BOOST_AUTO_TEST_CASE(a_file_renamed_over_or_recreated_is_reported) {
    write_file(dir / "new.so", "v2");
    rename_over(dir / "new.so", plugin);
    BOOST_TEST_REQUIRE(wait_until([&] { return count() >= 1; }));
    BOOST_TEST((taken() == std::vector<fs::path>{plugin}));

    fs::remove(plugin);
    write_file(plugin, "v3");
    BOOST_TEST_REQUIRE(wait_until([&] { return count() >= 1; }));
    BOOST_TEST((taken() == std::vector<fs::path>{plugin}));
}

BOOST_AUTO_TEST_CASE(other_files_and_files_no_longer_watched_are_not_reported) {
    write_file(dir / "unrelated.txt", "x");
    watcher.watch({other});
    write_file(plugin, "v2");
    write_file(other, "v3");
    // Written after the others: a report of them would have come first.
    BOOST_TEST_REQUIRE(wait_until([&] { return has_reported(other); }));
    BOOST_TEST((taken() == std::vector<fs::path>{other}));
}

BOOST_AUTO_TEST_CASE(a_missing_folder_is_a_warning_not_a_failure) {
    watcher.watch({plugin, dir / "missing" / "lib.so"});
    {
        std::lock_guard lock(mutex);
        BOOST_TEST_REQUIRE(warnings.size() == 1u);
        BOOST_TEST(warnings[0].find("cannot watch " + (dir / "missing").string()) == 0u, warnings[0]);
    }
    write_file(plugin, "v2");
    BOOST_TEST(wait_until([&] { return count() >= 1; }));
}

BOOST_AUTO_TEST_SUITE_END()
