// Sync back's temporary files a crash left in the developer's folder
// (host/sync_back/left_temporaries.*): removed only where they are ours
// beyond doubt, never a developer's file with a like name, a symlink with
// our name, a delete's file moved aside, nor anything through a symlink.
#define BOOST_TEST_MODULE left_temporaries
#include <unistd.h>

#include <boost/test/unit_test.hpp>

#include <filesystem>
#include <fstream>
#include <string>

#include "host/sync_back/left_temporaries.hpp"
#include "tests/support/dead_pid.hpp"
#include "tests/support/temp_dir.hpp"

namespace fs = std::filesystem;
using namespace liveupdate::host::sync_back;
using liveupdate::test::TempDir;

namespace {

void write(const fs::path &path, const std::string &text) {
    fs::create_directories(path.parent_path());
    std::ofstream(path) << text;
}

using liveupdate::test::dead_pid;  // its temporaries' writer is dead

std::string ours(pid_t pid, int n, const char *suffix = ".tmp") {
    return ".lu-sync-back-" + std::to_string(pid) + "-" + std::to_string(n) + suffix;
}

struct timespec at(time_t seconds) {
    return {.tv_sec = seconds, .tv_nsec = 0};
}

}  // namespace

BOOST_AUTO_TEST_CASE(only_our_exact_names_are_temporaries) {
    BOOST_TEST(temporary_owner(".lu-sync-back-1234-7.tmp").value_or(0) == 1234);
    for (const char *name : {".lu-sync-back-notes.tmp", ".lu-sync-back-1234-7.tmp.bak", ".lu-sync-back-1234-7.aside",
                             ".lu-sync-back-1234.tmp", ".lu-sync-back--7.tmp", ".lu-sync-back-12a4-7.tmp",
                             "x.lu-sync-back-1234-7.tmp", ".lu-sync-back-0-7.tmp", ".lu-sync-back-1234-7-8.tmp"})
        BOOST_TEST(!temporary_owner(name).has_value(), name);
}

BOOST_AUTO_TEST_CASE(a_temporary_is_left_behind_only_when_no_writer_can_own_it) {
    TemporaryLook look{
        .owner = 42, .owner_runs = false, .modified = at(10000), .own_pid = 7, .own_start = at(5000), .now = at(10005)};
    BOOST_TEST(left_behind(look));  // its writer is gone
    look.owner_runs = true;
    BOOST_TEST(!left_behind(look));  // its writer may still be writing it
    look.now = at(10000 + 3601);
    BOOST_TEST(left_behind(look));  // untouched for an hour: an id used again
    look.owner = 7;
    BOOST_TEST(!left_behind(look));  // this process made it since it started
    look.own_start = at(20000);
    BOOST_TEST(left_behind(look));  // an earlier process with this id made it
}

BOOST_AUTO_TEST_CASE(only_ours_left_behind_are_removed_and_no_symlink_is_followed) {
    TempDir dir{"lu-left-temporaries"};
    const fs::path root = dir.path() / "src", outside = dir.path() / "outside";
    const pid_t dead = dead_pid();
    write(root / ours(dead, 1), "half a file");
    write(root / "gen" / "deep" / ours(dead, 2), "half another");
    // Decoys: a developer's files with like names, a delete's file moved
    // aside (maybe a developer's save kept), one this process is writing.
    write(root / ".lu-sync-back-notes.tmp", "mine");
    write(root / (ours(dead, 3) + ".bak"), "mine");
    write(root / ours(dead, 4, ".aside"), "a save kept");
    write(root / "gen" / ours(::getpid(), 5), "being written");
    // Our names as symlinks, and through a symlinked folder, point outside.
    write(outside / "target.txt", "outside");
    write(outside / ours(dead, 6), "outside, our name");
    fs::create_symlink(outside / "target.txt", root / ours(dead, 7));
    fs::create_symlink(outside, root / "linked");
    // A folder with our name is no file.
    fs::create_directories(root / ours(dead, 8));

    const LeftTemporaries left = remove_left_temporaries(root.string());

    BOOST_TEST(left.errors.empty());
    BOOST_TEST(left.removed.size() == 2u);
    BOOST_TEST(!fs::exists(root / ours(dead, 1)));
    BOOST_TEST(!fs::exists(root / "gen" / "deep" / ours(dead, 2)));
    BOOST_TEST(fs::exists(root / ".lu-sync-back-notes.tmp"));
    BOOST_TEST(fs::exists(root / (ours(dead, 3) + ".bak")));
    BOOST_TEST(fs::exists(root / ours(dead, 4, ".aside")));
    BOOST_TEST(fs::exists(root / "gen" / ours(::getpid(), 5)));
    BOOST_TEST(fs::is_symlink(root / ours(dead, 7)));
    BOOST_TEST(fs::exists(outside / "target.txt"));
    BOOST_TEST(fs::exists(outside / ours(dead, 6)));
    BOOST_TEST(fs::is_directory(root / ours(dead, 8)));
}

BOOST_AUTO_TEST_CASE(a_missing_local_path_is_nothing_to_clean) {
    TempDir dir{"lu-left-temporaries"};
    const LeftTemporaries left = remove_left_temporaries((dir.path() / "none").string());
    BOOST_TEST(left.removed.empty());
    BOOST_TEST(left.errors.empty());
}
