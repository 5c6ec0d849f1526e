#include <boost/test/unit_test.hpp>

#include <fcntl.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>

#include "host/up/tree_snapshot.hpp"
#include "tests/support/temp_dir.hpp"

namespace fs = std::filesystem;
using namespace liveupdate::host::up;

namespace {
using liveupdate::test::TempDir;

void write(const fs::path &p, const std::string &text) {
    fs::create_directories(p.parent_path());
    std::ofstream(p) << text;
}
const auto never = [](const std::string &) { return false; };
}  // namespace

BOOST_AUTO_TEST_CASE(diff_reports_added_removed_and_changed_files) {
    TempDir t;
    write(t.path() / "a.txt", "a");
    write(t.path() / "sub/b.txt", "b");
    write(t.path() / "c.txt", "c");
    TreeSnapshot before;
    scan_tree(t.path(), never, never, before);

    write(t.path() / "a.txt", "longer");
    fs::remove(t.path() / "c.txt");
    write(t.path() / "sub/new.txt", "n");
    TreeSnapshot after;
    scan_tree(t.path(), never, never, after);

    const std::vector<std::string> expected{(t.path() / "a.txt").string(), (t.path() / "c.txt").string(),
                                            (t.path() / "sub/new.txt").string()};
    BOOST_TEST(diff_snapshots(before, after) == expected, boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(same_size_new_mtime_is_a_change) {
    TempDir t;
    write(t.path() / "a.txt", "a");
    TreeSnapshot before;
    scan_tree(t.path(), never, never, before);
    const fs::path a = t.path() / "a.txt";
    write(a, "b");
    struct timespec times[2] = {{0, UTIME_OMIT}, {12345, 0}};
    ::utimensat(AT_FDCWD, a.c_str(), times, 0);
    TreeSnapshot after;
    scan_tree(t.path(), never, never, after);
    const std::vector<std::string> expected{a.string()};
    BOOST_TEST(diff_snapshots(before, after) == expected, boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(skipped_directories_are_not_scanned) {
    TempDir t;
    write(t.path() / "keep/a.txt", "a");
    write(t.path() / "skip/b.txt", "b");
    TreeSnapshot snap;
    scan_tree(
        t.path(), [&](const std::string &d) { return d == (t.path() / "skip").string(); }, never, snap);
    BOOST_TEST(snap.count((t.path() / "keep/a.txt").string()) == 1u);
    BOOST_TEST(snap.count((t.path() / "skip/b.txt").string()) == 0u);
}
