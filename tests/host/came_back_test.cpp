// The forward watcher's echo check (host/sync_back/came_back.*): a path as
// sync back leaves it is its echo, never sent forward again; once it looks
// otherwise, its changes are the developer's (docs/sync-back.md, "No echo").
// A file that comes back twice in a row is looked at by the watcher between
// the two writes: what the first one left is sync back's until the second
// one ended.
#define BOOST_TEST_MODULE came_back
#include <boost/test/unit_test.hpp>

#include <filesystem>
#include <fstream>
#include <string>

#include "host/sync_back/beneath_files.hpp"
#include "host/sync_back/came_back.hpp"
#include "tests/support/temp_dir.hpp"

namespace fs = std::filesystem;
using liveupdate::host::sync_back::CameBack;
using liveupdate::test::TempDir;

namespace {

void write(const fs::path &p, const std::string &text) {
    fs::create_directories(p.parent_path());
    std::ofstream(p, std::ios::trunc) << text;
}

std::string digest_of(const std::string &text) {
    const TempDir dir("lu-came-back-digest");
    write(dir.path() / "f", text);
    return liveupdate::host::sync_back::open_beneath(dir.path().string(), "f", UINT64_MAX).state.digest;
}

// The developer's folder and a file in it that comes back.
struct Folder {
    TempDir dir{"lu-came-back-test"};
    fs::path local = dir.path();
    fs::path file = local / "gen" / "a.js";
    CameBack came_back;

    // Sync back writes text to the file, as LocalSyncBack does: noted, written, ended.
    void comes_back(const std::string &text) {
        came_back.expect_written(file.string(), digest_of(text), local.string());
        write(file, text);
        came_back.ended(file.string(), true);
    }
};

}  // namespace

BOOST_AUTO_TEST_SUITE(came_back)

// The bench's echo: the agent reported a.js while the app had only begun to
// write it (empty), then again whole; the watcher's look at the first write
// came while the second one was under way, the file still empty.
BOOST_AUTO_TEST_CASE(a_file_is_an_echo_while_its_next_write_back_is_under_way) {
    Folder f;
    f.came_back.expect_written(f.file.string(), digest_of(""), f.local.string());
    write(f.file, "");
    BOOST_TEST(f.came_back.is_echo(f.file.string()));
    f.came_back.expect_written(f.file.string(), digest_of("module.exports = 1;\n"), f.local.string());
    BOOST_TEST(f.came_back.is_echo(f.file.string()));  // still empty: the second write is under way
    write(f.file, "module.exports = 1;\n");
    BOOST_TEST(f.came_back.is_echo(f.file.string()));
}

// Once the write ended, what it replaced is no longer sync back's: a
// developer's save of the same bytes is sent forward.
BOOST_AUTO_TEST_CASE(what_a_write_replaced_is_the_developers_once_it_ended) {
    Folder f;
    f.comes_back("v1");
    f.comes_back("v2");
    BOOST_TEST(f.came_back.is_echo(f.file.string()));
    write(f.file, "v1");
    BOOST_TEST(!f.came_back.is_echo(f.file.string()));
    // Forgotten: the developer's v2 is no echo either.
    write(f.file, "v2");
    BOOST_TEST(!f.came_back.is_echo(f.file.string()));
}

// A delete under way: the file it is about to delete is still sync back's,
// then its absence; a file made again at the name is the developer's.
BOOST_AUTO_TEST_CASE(a_delete_under_way_leaves_the_file_an_echo_until_it_ended) {
    Folder f;
    f.comes_back("v1");
    f.came_back.expect_deleted(f.file.string());
    BOOST_TEST(f.came_back.is_echo(f.file.string()));
    fs::remove(f.file);
    f.came_back.ended(f.file.string(), true);
    BOOST_TEST(f.came_back.is_echo(f.file.string()));
    write(f.file, "v1");
    BOOST_TEST(!f.came_back.is_echo(f.file.string()));
}

// A write that did not land (the container file changed while it was
// copied) leaves the file sync back wrote before: still its echo, and the
// digest it did not write is not.
BOOST_AUTO_TEST_CASE(a_write_that_did_not_land_leaves_the_earlier_one_an_echo) {
    Folder f;
    f.comes_back("v1");
    f.came_back.expect_written(f.file.string(), digest_of("v2"), f.local.string());
    f.came_back.ended(f.file.string(), false);
    BOOST_TEST(f.came_back.is_echo(f.file.string()));
    write(f.file, "v2");
    BOOST_TEST(!f.came_back.is_echo(f.file.string()));
}

// A file sync back never wrote is not its echo while its first write is
// under way: what was there is the developer's.
BOOST_AUTO_TEST_CASE(a_developers_file_is_no_echo_while_a_first_write_is_under_way) {
    Folder f;
    write(f.file, "the developer's");
    f.came_back.expect_written(f.file.string(), digest_of("v1"), f.local.string());
    BOOST_TEST(!f.came_back.is_echo(f.file.string()));
}

BOOST_AUTO_TEST_SUITE_END()
