// The digest walk's bounds (common/tree_digest): which files it reads, the
// pseudo filesystems it leaves alone, its byte and time budget, a caller's
// stop, and the digests themselves, against XXH3-64 computed here.
#define BOOST_TEST_MODULE tree_digest
#include <sys/vfs.h>
#include <unistd.h>

#include <boost/test/unit_test.hpp>

#include <cerrno>
#include <filesystem>
#include <fstream>
#include <string>

#define XXH_INLINE_ALL
#include <xxhash.h>

#include "common/tree_digest/tree_digest.hpp"
#include "tests/support/temp_dir.hpp"

namespace fs = std::filesystem;
namespace td = liveupdate::tree_digest;

namespace {

struct Folder {
    liveupdate::test::TempDir dir{"lu-tree-digest"};
    fs::path root = dir.path();
    void write(const std::string &relative, const std::string &content) const {
        fs::create_directories((root / relative).parent_path());
        std::ofstream(root / relative) << content;
    }
};

td::Digest walk(const std::string &root, const td::WalkOptions &options, td::WalkResult &result) {
    td::Digest out;
    result = td::walk_tree(root, options, [&out](td::Entry &&e) {
        out.push_back(std::move(e));
        return true;
    });
    return out;
}

const td::Entry *find(const td::Digest &digest, const std::string &path) {
    for (const auto &e : digest)
        if (e.path == path) return &e;
    return nullptr;
}

}  // namespace

BOOST_AUTO_TEST_CASE(only_the_files_asked_for_are_read) {
    Folder f;
    f.write("synced.txt", "ours");
    f.write("app/disk.img", "");
    fs::resize_file(f.root / "app/disk.img", std::uintmax_t{3} << 40);  // 3 TB, sparse
    td::WalkOptions options;
    options.hash_content = [](const std::string &relative) { return relative == "synced.txt"; };
    td::WalkResult result;
    const td::Digest digest = walk(f.root, options, result);
    BOOST_TEST(result.error.empty(), result.error);
    const td::Entry *image = find(digest, "app/disk.img");
    BOOST_TEST_REQUIRE(image != nullptr);
    BOOST_TEST((image->kind == td::EntryKind::file));
    BOOST_TEST(image->size == std::uint64_t{3} << 40);
    BOOST_TEST(image->hash == 0u);
    const td::Entry *synced = find(digest, "synced.txt");
    BOOST_TEST_REQUIRE(synced != nullptr);
    BOOST_TEST(synced->hash != 0u);
}

// Journals and the agent protocol hold these values: a file's and a
// symlink's hash is XXH3-64 with seed 0 of its bytes, whatever the walk's
// buffer (a file past it is hashed in several chunks); a change of algorithm
// or seed fails here. The empty file's value is written out, so that
// xxhash.h itself changing its output fails too.
BOOST_AUTO_TEST_CASE(a_files_hash_is_xxh3_64_of_its_bytes) {
    Folder f;
    const std::string text = "package-lock.json: {\"lockfileVersion\": 3}\n";
    std::string large(std::size_t{3} << 20, '\0');
    for (std::size_t i = 0; i < large.size(); ++i) large[i] = static_cast<char>((i * 131 + (i >> 12)) & 0xff);
    f.write("text.json", text);
    f.write("large.bin", large);
    f.write("empty", "");
    fs::create_symlink("text.json", f.root / "link");
    td::WalkResult result;
    const td::Digest digest = walk(f.root, {}, result);
    BOOST_TEST(result.error.empty(), result.error);
    const auto hash_of = [&digest](const std::string &path) {
        const td::Entry *e = find(digest, path);
        BOOST_TEST_REQUIRE(e != nullptr, path);
        return e->hash;
    };
    BOOST_TEST(hash_of("text.json") == XXH3_64bits(text.data(), text.size()));
    BOOST_TEST(hash_of("large.bin") == XXH3_64bits(large.data(), large.size()));
    BOOST_TEST(hash_of("link") == XXH3_64bits("text.json", 9));
    BOOST_TEST(hash_of("empty") == XXH3_64bits("", 0));
    BOOST_TEST(hash_of("empty") == 0x2D06800538D394C2u);
}

BOOST_AUTO_TEST_CASE(a_walk_past_its_byte_budget_stops_and_says_it_is_incomplete) {
    Folder f;
    f.write("big.img", "");
    fs::resize_file(f.root / "big.img", std::uintmax_t{64} << 20);
    f.write("later.txt", "after the big file");
    td::WalkOptions options;
    options.max_bytes = std::uint64_t{1} << 20;
    td::WalkResult result;
    const td::Digest digest = walk(f.root, options, result);
    BOOST_TEST(result.over_budget);
    BOOST_TEST(result.error_code == ETIMEDOUT);
    BOOST_TEST(result.error.find("the digest of " + f.root.string() + " is incomplete: it read more than 1 MiB") == 0,
               result.error);
    BOOST_TEST(find(digest, "later.txt") == nullptr);
}

BOOST_AUTO_TEST_CASE(a_walk_past_its_time_budget_stops_and_says_it_is_incomplete) {
    Folder f;
    f.write("huge.img", "");
    fs::resize_file(f.root / "huge.img", std::uintmax_t{3} << 40);
    td::WalkOptions options;
    options.max_time = std::chrono::milliseconds(200);
    td::WalkResult result;
    walk(f.root, options, result);
    BOOST_TEST(result.over_budget);
    BOOST_TEST(result.error.find("it took more than 200 ms") != std::string::npos, result.error);
}

BOOST_AUTO_TEST_CASE(keep_going_false_stops_a_walk_in_the_middle_of_a_file) {
    Folder f;
    f.write("huge.img", "");
    fs::resize_file(f.root / "huge.img", std::uintmax_t{3} << 40);
    td::WalkOptions options;
    options.max_time = std::chrono::milliseconds(0);
    options.max_bytes = 0;
    int asked = 0;
    options.keep_going = [&asked] { return ++asked < 2; };
    td::WalkResult result;
    walk(f.root, options, result);
    BOOST_TEST(result.stopped);
    BOOST_TEST(asked == 2);
}

// procfs at the root, and below it (a root of "/" whose other folders are
// pruned): neither read nor descended.
BOOST_AUTO_TEST_CASE(procfs_is_given_as_a_folder_and_never_read) {
    td::WalkOptions options;
    td::WalkResult result;
    const td::Digest proc = walk("/proc", options, result);
    BOOST_TEST(proc.size() == 1u);
    BOOST_TEST((proc.at(0).kind == td::EntryKind::dir));

    options.prune = [](const std::string &dir) { return dir != "/"; };
    const td::Digest root = walk("/", options, result);
    const td::Entry *entry = find(root, "proc");
    BOOST_TEST_REQUIRE(entry != nullptr);
    BOOST_TEST((entry->kind == td::EntryKind::dir));
    for (const auto &e : root) BOOST_TEST(e.path.rfind("proc/", 0) != 0, e.path);
}

BOOST_AUTO_TEST_CASE(pseudo_filesystems_are_told_by_their_type) {
    struct statfs proc {};
    BOOST_TEST_REQUIRE(::statfs("/proc", &proc) == 0);
    BOOST_TEST(td::is_pseudo_filesystem(static_cast<std::int64_t>(proc.f_type)));
    struct statfs sys {};
    if (::statfs("/sys", &sys) == 0) BOOST_TEST(td::is_pseudo_filesystem(static_cast<std::int64_t>(sys.f_type)));
    struct statfs tmp {};
    BOOST_TEST_REQUIRE(::statfs("/tmp", &tmp) == 0);
    BOOST_TEST(!td::is_pseudo_filesystem(static_cast<std::int64_t>(tmp.f_type)));
}
