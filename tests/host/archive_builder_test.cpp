#include <archive.h>
#include <archive_entry.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>

#include <boost/test/unit_test.hpp>

#include "common/ignore_defs.hpp"
#include "common/sync_back/content_digest.hpp"
#include "common/tar_reader.hpp"
#include "host/core/archive_builder.hpp"
#include "host/core/host_error.hpp"
#include "tests/support/temp_dir.hpp"

using namespace liveupdate::host;
using liveupdate::common::IgnoreSet;
using liveupdate::updater::CopyMapping;
namespace fs = std::filesystem;

namespace {

using liveupdate::test::TempDir;

void write(const fs::path &path, const std::string &content) {
    fs::create_directories(path.parent_path());
    std::ofstream(path, std::ios::binary) << content;
}

struct Entry {
    mode_t type;
    unsigned perm;
    la_int64_t uid, gid;
    bool has_owner_names;
    std::string symlink;
    std::string content;
};

bool empty(const char *text) { return text == nullptr || *text == '\0'; }

std::map<std::string, Entry> read_tar(const std::string &bytes) {
    std::map<std::string, Entry> entries;
    liveupdate::common::TarReader reader{std::string_view(bytes)};
    while (archive_entry *entry = reader.next()) {
        Entry e{archive_entry_filetype(entry),
                archive_entry_perm(entry) & 07777,
                archive_entry_uid(entry),
                archive_entry_gid(entry),
                !empty(archive_entry_uname(entry)) || !empty(archive_entry_gname(entry)),
                archive_entry_symlink(entry) ? archive_entry_symlink(entry) : "",
                ""};
        char buffer[4096];
        while (const std::size_t n = reader.read_data(buffer, sizeof buffer)) e.content.append(buffer, n);
        entries[archive_entry_pathname(entry)] = e;
    }
    return entries;
}

struct Built {
    std::string bytes;
    std::vector<std::string> warnings;
};

Built build(const std::vector<CopyMapping> &copies, const IgnoreSet &filter = {}) {
    Built built;
    write_archive(
        copies, filter,
        [&](const void *data, std::size_t size) { built.bytes.append(static_cast<const char *>(data), size); },
        [&](liveupdate::common::LogLevel, std::string_view line) { built.warnings.emplace_back(line); });
    return built;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(archive_builder)

BOOST_AUTO_TEST_CASE(files_directories_and_symlinks_keep_modes_without_owners) {
    TempDir tmp;
    write(tmp.path() / "src/a.txt", "alpha");
    write(tmp.path() / "src/bin/run.sh", "#!/bin/sh\n");
    fs::permissions(tmp.path() / "src/bin/run.sh", fs::perms(0750));
    fs::create_directories(tmp.path() / "src/empty");
    fs::create_symlink("a.txt", tmp.path() / "src/link");
    write(tmp.path() / "single.conf", "x=1");

    const Built built =
        build({{(tmp.path() / "src").string(), "/app"}, {(tmp.path() / "single.conf").string(), "/etc/c.conf"}});
    auto entries = read_tar(built.bytes);
    std::vector<std::string> names;
    names.reserve(entries.size());
    for (const auto &[name, e] : entries) names.push_back(name);
    BOOST_TEST(names == (std::vector<std::string>{"app/", "app/a.txt", "app/bin/", "app/bin/run.sh", "app/empty/",
                                                  "app/link", "etc/c.conf"}),
               boost::test_tools::per_element());
    BOOST_TEST(entries["app/a.txt"].content == "alpha");
    BOOST_TEST(entries["app/a.txt"].type == AE_IFREG);
    BOOST_TEST(entries["app/bin/run.sh"].perm == 0750);
    BOOST_TEST(entries["app/bin/"].type == AE_IFDIR);
    BOOST_TEST(entries["app/link"].type == AE_IFLNK);
    BOOST_TEST(entries["app/link"].symlink == "a.txt");
    BOOST_TEST(entries["etc/c.conf"].content == "x=1");
    for (const auto &[name, e] : entries) {
        BOOST_TEST(e.uid == 0);
        BOOST_TEST(e.gid == 0);
        BOOST_TEST(!e.has_owner_names, name);
    }
    BOOST_TEST(built.warnings.empty());
}

// Issue 23: a folder moved in is listed with each of its files (the watcher
// reports them all); its walk already holds them, so each goes in once.
BOOST_AUTO_TEST_CASE(a_folder_listed_with_its_files_archives_each_file_once) {
    TempDir tmp;
    write(tmp.path() / "src/moved/a.txt", "a");
    write(tmp.path() / "src/moved/sub/b.txt", "b");
    write(tmp.path() / "src/moved/debug.log", "l");
    const std::string src = (tmp.path() / "src").string();
    const IgnoreSet filter = liveupdate::common::ignore_set_of({{src, {"**/*.log"}}});
    const Built built = build({{src + "/moved", "/app/moved"},
                               {src + "/moved/a.txt", "/app/moved/a.txt"},
                               {src + "/moved/debug.log", "/app/moved/debug.log"},
                               {src + "/moved/sub", "/app/moved/sub"},
                               {src + "/moved/sub/b.txt", "/app/moved/sub/b.txt"},
                               {src + "/moved/a.txt", "/elsewhere/a.txt"}},
                              filter);
    std::vector<std::string> names;
    liveupdate::common::TarReader reader{std::string_view(built.bytes)};
    while (archive_entry *entry = reader.next()) names.emplace_back(archive_entry_pathname(entry));
    // The ignored file the walk left out is named on its own, so it goes in, as before.
    BOOST_TEST(names == (std::vector<std::string>{"app/moved/", "app/moved/a.txt", "app/moved/sub/",
                                                  "app/moved/sub/b.txt", "app/moved/debug.log", "elsewhere/a.txt"}),
               boost::test_tools::per_element());
    BOOST_TEST(read_tar(built.bytes)["app/moved/sub/b.txt"].content == "b");
}

BOOST_AUTO_TEST_CASE(the_filter_skips_ignored_files_and_directories) {
    TempDir tmp;
    write(tmp.path() / "keep.txt", "k");
    write(tmp.path() / "debug.log", "l");
    write(tmp.path() / "node_modules/m/index.js", "m");
    write(tmp.path() / "build/out.o", "o");
    write(tmp.path() / "build/keep.me", "k");
    const std::string base = tmp.path().string();
    const IgnoreSet filter =
        liveupdate::common::ignore_set_of({{base, {"*.log", "node_modules"}}, {base, {"build", "!build/keep.me"}}});
    auto entries = read_tar(build({{base, "/app"}}, filter).bytes);
    std::vector<std::string> names;
    names.reserve(entries.size());
    for (const auto &[name, e] : entries) names.push_back(name);
    BOOST_TEST(names == (std::vector<std::string>{"app/", "app/build/keep.me", "app/keep.txt"}),
               boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(a_vanished_path_is_skipped_with_a_warning) {
    TempDir tmp;
    write(tmp.path() / "here.txt", "h");
    const Built built = build(
        {{(tmp.path() / "gone.txt").string(), "/app/gone.txt"}, {(tmp.path() / "here.txt").string(), "/app/here.txt"}});
    auto entries = read_tar(built.bytes);
    BOOST_TEST(entries.size() == 1u);
    BOOST_TEST(entries.count("app/here.txt") == 1u);
    BOOST_TEST_REQUIRE(built.warnings.size() == 1u);
    BOOST_TEST(built.warnings[0].find("gone.txt") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(the_stream_yields_the_same_bytes_in_small_reads) {
    TempDir tmp;
    write(tmp.path() / "big.bin", std::string(3 * 1024 * 1024 + 7, 'z'));
    write(tmp.path() / "small.txt", "s");
    const std::vector<CopyMapping> copies{{tmp.path().string(), "/data"}};
    const std::string expected = build(copies).bytes;

    ArchiveStream stream(copies, IgnoreSet{}, [](liveupdate::common::LogLevel, std::string_view) {});
    lu_archive_stream c = stream.c_stream();
    std::string streamed;
    char buffer[1000];
    int64_t n;
    while ((n = c.read(c.ctx, buffer, sizeof buffer)) > 0) streamed.append(buffer, static_cast<size_t>(n));
    BOOST_TEST(n == 0);
    BOOST_TEST(!stream.error().has_value());
    BOOST_TEST(streamed.size() == expected.size());
    BOOST_TEST((streamed == expected));
    BOOST_TEST(stream.summary().entries == 3u);
}

namespace {

// Bytes this process has read so far (rchar of /proc/self/io: every read(2) of every thread).
std::uint64_t bytes_read_by_this_process() {
    std::ifstream io("/proc/self/io");
    std::string key;
    std::uint64_t value = 0;
    while (io >> key >> value)
        if (key == "rchar:") return value;
    BOOST_FAIL("no rchar in /proc/self/io");
    return 0;
}

}  // namespace

BOOST_AUTO_TEST_CASE(a_stream_dropped_unread_stops_its_writer) {
    TempDir tmp;
    constexpr std::uint64_t kBig = std::uint64_t{8} * 1024 * 1024;
    write(tmp.path() / "big.bin", std::string(kBig, 'z'));
    const std::uint64_t before = bytes_read_by_this_process();
    {
        ArchiveStream stream({{tmp.path().string(), "/data"}}, IgnoreSet{},
                             [](liveupdate::common::LogLevel, std::string_view) {});
        char buffer[10];
        BOOST_TEST(stream.read(buffer, sizeof buffer) > 0);
    }  // returns once the writer has stopped (a writer that waits for a reader hangs here)
    // Stopped, not finished into the void: it read a buffer or two of the file, not all of it.
    const std::uint64_t read = bytes_read_by_this_process() - before;
    BOOST_TEST(read < kBig / 2, read << " bytes read");
}

// Readable by nobody, root included (procfs checks the mode even for root).
constexpr const char *kUnreadable = "/proc/sys/vm/compact_memory";

BOOST_AUTO_TEST_CASE(an_unreadable_path_is_left_out_and_every_other_file_arrives) {
    TempDir tmp;
    write(tmp.path() / "a.txt", "a");
    write(tmp.path() / "c.txt", "c");
    const std::vector<CopyMapping> copies{{(tmp.path() / "a.txt").string(), "/app/a.txt"},
                                          {kUnreadable, "/app/b.txt"},
                                          {(tmp.path() / "c.txt").string(), "/app/c.txt"}};
    const Built built = build(copies);
    const auto entries = read_tar(built.bytes);
    BOOST_TEST(entries.size() == 2u);
    BOOST_TEST(entries.at("app/a.txt").content == "a");
    BOOST_TEST(entries.at("app/c.txt").content == "c");
    BOOST_TEST_REQUIRE(built.warnings.size() == 1u);
    BOOST_TEST(built.warnings[0].find(kUnreadable) != std::string::npos);
    BOOST_TEST(built.warnings[0].find("Permission denied") != std::string::npos);

    // Through the stream: read to its end, yet the archive is not complete.
    ArchiveStream stream(copies, IgnoreSet{}, [](liveupdate::common::LogLevel, std::string_view) {});
    std::string streamed;
    char buffer[4096];
    int64_t n;
    while ((n = stream.read(buffer, sizeof buffer)) > 0) streamed.append(buffer, static_cast<size_t>(n));
    BOOST_TEST(n == 0);
    BOOST_TEST((streamed == built.bytes));
    const auto incomplete = stream.finish(true);
    BOOST_TEST_REQUIRE(incomplete.has_value());
    BOOST_TEST(incomplete->find(std::string(kUnreadable) + " (cannot open: Permission denied)") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(finish_reads_what_the_updater_left_and_reports_a_complete_archive) {
    TempDir tmp;
    write(tmp.path() / "a.txt", "a");
    ArchiveStream stream({{tmp.path().string(), "/data"}}, IgnoreSet{},
                         [](liveupdate::common::LogLevel, std::string_view) {});
    char buffer[10];
    BOOST_TEST(stream.read(buffer, sizeof buffer) > 0);
    BOOST_TEST(!stream.finish(true).has_value());
    BOOST_TEST(stream.summary().entries == 2u);
}

namespace {

std::string read_rest(lu_archive_stream c) {
    std::string streamed;
    char buffer[1000];
    int64_t n;
    while ((n = c.read(c.ctx, buffer, sizeof buffer)) > 0) streamed.append(buffer, static_cast<size_t>(n));
    BOOST_TEST(n == 0);
    return streamed;
}

}  // namespace

BOOST_AUTO_TEST_CASE(a_rewound_stream_starts_again_at_the_first_byte) {
    TempDir tmp;
    write(tmp.path() / "big.bin", std::string(2 * 1024 * 1024 + 3, 'y'));
    const std::vector<CopyMapping> copies{{tmp.path().string(), "/data"}};
    const std::string expected = build(copies).bytes;
    ArchiveStream stream(copies, IgnoreSet{}, [](liveupdate::common::LogLevel, std::string_view) {});
    lu_archive_stream c = stream.c_stream();
    char buffer[5000];
    BOOST_TEST(c.read(c.ctx, buffer, sizeof buffer) > 0);  // broken off in the first file
    BOOST_TEST(ArchiveStream::rewind_fn(c.ctx) == 0);
    BOOST_TEST((read_rest(c) == expected));
    // Once more after reading to the end; the summary is the last pass's.
    BOOST_TEST(stream.rewind() == 0);
    BOOST_TEST((read_rest(c) == expected));
    BOOST_TEST(!stream.finish(true).has_value());
    BOOST_TEST(stream.summary().entries == 2u);
    BOOST_TEST(stream.summary().bytes == expected.size());
}

BOOST_AUTO_TEST_CASE(a_rewound_stream_holds_the_files_as_they_are_now) {
    TempDir tmp;
    write(tmp.path() / "a.txt", "first");
    const std::vector<CopyMapping> copies{{tmp.path().string(), "/data"}};
    ArchiveStream stream(copies, IgnoreSet{}, [](liveupdate::common::LogLevel, std::string_view) {});
    BOOST_TEST(read_tar(read_rest(stream.c_stream())).at("data/a.txt").content == "first");
    write(tmp.path() / "a.txt", "second, longer");
    BOOST_TEST(stream.rewind() == 0);
    BOOST_TEST(read_tar(read_rest(stream.c_stream())).at("data/a.txt").content == "second, longer");
}

// Listed as one kind, opened as another: the archive holds each path as it
// is when it is opened, and nothing is reported unreadable (the fault soak's
// folder flipped into a symlink mid-archive failed the whole update).
BOOST_AUTO_TEST_CASE(a_path_that_changes_kind_while_archived_goes_in_as_its_new_kind) {
    TempDir tmp;
    write(tmp.path() / "a.txt", "a");
    write(tmp.path() / "b/inner.txt", "i");         // a folder, then a symlink
    write(tmp.path() / "c.txt", "c");               // a file, then a folder
    write(tmp.path() / "d.txt", "d");               // a file, then a symlink
    fs::create_symlink("a.txt", tmp.path() / "e");  // a symlink, then a file
    bool flipped = false;
    ArchiveStream stream(
        {{tmp.path().string(), "/data"}}, IgnoreSet{}, [](liveupdate::common::LogLevel, std::string_view) {},
        [&](const std::string &path) {
            if (path != "/data/a.txt" || flipped) return;
            flipped = true;
            fs::remove_all(tmp.path() / "b");
            fs::create_symlink("a.txt", tmp.path() / "b");
            fs::remove(tmp.path() / "c.txt");
            write(tmp.path() / "c.txt/now.txt", "n");
            fs::remove(tmp.path() / "d.txt");
            fs::create_symlink("a.txt", tmp.path() / "d.txt");
            fs::remove(tmp.path() / "e");
            write(tmp.path() / "e", "file now");
        });
    const auto entries = read_tar(read_rest(stream.c_stream()));
    BOOST_TEST_REQUIRE(flipped);
    BOOST_TEST(!stream.finish(true).has_value());
    BOOST_TEST(entries.at("data/b").type == AE_IFLNK);
    BOOST_TEST(entries.count("data/b/inner.txt") == 0u);
    BOOST_TEST(entries.at("data/c.txt/").type == AE_IFDIR);
    BOOST_TEST(entries.at("data/c.txt/now.txt").content == "n");
    BOOST_TEST(entries.at("data/d.txt").type == AE_IFLNK);
    BOOST_TEST(entries.at("data/d.txt").symlink == "a.txt");
    BOOST_TEST(entries.at("data/e").type == AE_IFREG);
    BOOST_TEST(entries.at("data/e").content == "file now");
}

// One change to several replicas: the archive is built once, and each
// replica's stream gives its bytes, telling its entries before they leave.
BOOST_AUTO_TEST_CASE(a_prebuilt_archive_streams_what_a_writer_would_and_tells_its_entries_first) {
    TempDir tmp;
    write(tmp.path() / "src/a.txt", "alpha");
    write(tmp.path() / "src/b/c.txt", "gamma");
    const std::vector<CopyMapping> copies{{(tmp.path() / "src").string(), "/app"}};
    const auto prebuilt = prebuild_archive(copies, IgnoreSet{}, 1 << 20);
    BOOST_TEST_REQUIRE(prebuilt != nullptr);
    BOOST_TEST((prebuilt->bytes == build(copies).bytes));
    std::vector<std::string> told;
    std::size_t told_when_bytes_left = 0;
    ArchiveStream stream(
        prebuilt, copies, IgnoreSet{}, [](liveupdate::common::LogLevel, std::string_view) {},
        [&](const std::string &path) { told.push_back(path); }, [&] { told_when_bytes_left = told.size(); });
    BOOST_TEST((read_rest(stream.c_stream()) == prebuilt->bytes));
    BOOST_TEST((told == std::vector<std::string>{"/app", "/app/a.txt", "/app/b", "/app/b/c.txt"}));
    BOOST_TEST(told_when_bytes_left == told.size());
    BOOST_TEST(!stream.finish(true).has_value());
}

BOOST_AUTO_TEST_CASE(a_prebuilt_archive_is_not_read_again_until_rewound) {
    TempDir tmp;
    write(tmp.path() / "a.txt", "first");
    const std::vector<CopyMapping> copies{{(tmp.path() / "a.txt").string(), "/app/a.txt"}};
    const auto prebuilt = prebuild_archive(copies, IgnoreSet{}, 1 << 20);
    BOOST_TEST_REQUIRE(prebuilt != nullptr);
    write(tmp.path() / "a.txt", "second");
    ArchiveStream stream(prebuilt, copies, IgnoreSet{}, [](liveupdate::common::LogLevel, std::string_view) {});
    BOOST_TEST(read_tar(read_rest(stream.c_stream())).at("app/a.txt").content == "first");
    BOOST_TEST(stream.rewind() == 0);
    BOOST_TEST(read_tar(read_rest(stream.c_stream())).at("app/a.txt").content == "second");
    BOOST_TEST(!stream.finish(true).has_value());
}

BOOST_AUTO_TEST_CASE(a_prebuilt_archive_says_what_building_it_logged_and_left_out) {
    TempDir tmp;
    write(tmp.path() / "a.txt", "here");
    const std::vector<CopyMapping> copies{{(tmp.path() / "a.txt").string(), "/app/a.txt"},
                                          {(tmp.path() / "gone.txt").string(), "/app/gone.txt"}};
    const auto prebuilt = prebuild_archive(copies, IgnoreSet{}, 1 << 20);
    BOOST_TEST_REQUIRE(prebuilt != nullptr);
    const std::vector<std::string> expected = build(copies).warnings;
    BOOST_TEST_REQUIRE(!expected.empty());
    std::vector<std::string> logged;
    ArchiveStream stream(prebuilt, copies, IgnoreSet{},
                         [&](liveupdate::common::LogLevel, std::string_view line) { logged.emplace_back(line); });
    BOOST_TEST((logged == expected));
    BOOST_TEST(read_tar(read_rest(stream.c_stream())).count("app/a.txt") == 1u);
}

BOOST_AUTO_TEST_CASE(an_archive_larger_than_the_bound_is_not_prebuilt) {
    TempDir tmp;
    write(tmp.path() / "big.bin", std::string(std::size_t{64} * 1024, 'x'));
    const std::vector<CopyMapping> copies{{(tmp.path() / "big.bin").string(), "/app/big.bin"}};
    BOOST_TEST(prebuild_archive(copies, IgnoreSet{}, std::size_t{16} * 1024) == nullptr);
    BOOST_TEST(prebuild_archive(copies, IgnoreSet{}, 1 << 20) != nullptr);
}

// Sync back (docs/sync-back.md): each file's digest, as sync back computes
// it, is told before the last of its bytes leave, so that the record agrees
// on it before the container can hold the file whole.
BOOST_AUTO_TEST_CASE(each_file_is_told_its_digest_before_its_last_bytes_leave) {
    TempDir tmp;
    const std::string big(600 * 1024 + 7, 'b');  // several writer chunks
    write(tmp.path() / "src/a.txt", "alpha-content");
    write(tmp.path() / "src/empty.txt", "");
    write(tmp.path() / "src/big.bin", big);
    const std::vector<CopyMapping> copies{{(tmp.path() / "src").string(), "/app"}};
    const auto digest_of = [](const std::string &bytes) {
        liveupdate::sync_back::ContentDigest d;
        d.update(bytes.data(), bytes.size());
        return d.text();
    };
    std::mutex mutex;
    std::string left;  // what read() handed out so far
    std::map<std::string, std::string> told;
    std::vector<std::string> told_too_late;
    ArchiveStream stream(
        copies, IgnoreSet{}, [](liveupdate::common::LogLevel, std::string_view) {}, {}, {},
        [&](const std::string &path, const std::string &digest) {
            const std::lock_guard lock(mutex);
            told[path] = digest;
            const std::string content = path == "/app/a.txt" ? "alpha-content" : path == "/app/big.bin" ? big : "";
            const std::string name = path.substr(1);
            // Whole in what left: the entry's header, then all of its content.
            const std::size_t header = left.find(name);
            if (header != std::string::npos && left.size() >= header + 512 + content.size())
                told_too_late.push_back(path);
        });
    char buffer[4096];
    for (std::int64_t n = 0; (n = stream.read(buffer, sizeof buffer)) > 0;) {
        const std::lock_guard lock(mutex);
        left.append(buffer, static_cast<std::size_t>(n));
    }
    BOOST_TEST(!stream.finish(false).has_value());
    BOOST_TEST(told.size() == 3u);
    BOOST_TEST(told["/app/a.txt"] == digest_of("alpha-content"));
    BOOST_TEST(told["/app/empty.txt"] == digest_of(""));
    BOOST_TEST(told["/app/big.bin"] == digest_of(big));
    BOOST_TEST(told_too_late.empty());
    // A prebuilt archive tells them all before its first byte leaves.
    const auto prebuilt = prebuild_archive({{(tmp.path() / "src/a.txt").string(), "/app/a.txt"}}, IgnoreSet{}, 1 << 20);
    BOOST_TEST_REQUIRE(prebuilt != nullptr);
    std::vector<std::string> prebuilt_told;
    ArchiveStream shared(
        prebuilt, {{(tmp.path() / "src/a.txt").string(), "/app/a.txt"}}, IgnoreSet{},
        [](liveupdate::common::LogLevel, std::string_view) {}, {}, {},
        [&](const std::string &path, const std::string &digest) { prebuilt_told.push_back(path + " " + digest); });
    BOOST_TEST(shared.read(buffer, 1) == 1);
    BOOST_TEST((prebuilt_told == std::vector<std::string>{"/app/a.txt " + digest_of("alpha-content")}));
    read_rest(shared.c_stream());
    BOOST_TEST(!shared.finish(true).has_value());
}

// A file cut short while it is archived (an editor's save truncating it after
// its header left) goes in padded with zeros to the size in its header: its
// digest is of those bytes, what the container holds, so that the next save's
// forward guard finds what was agreed rather than "the app's change".
BOOST_AUTO_TEST_CASE(a_file_that_shrank_while_archived_is_told_the_digest_of_its_padding) {
    TempDir tmp;
    const std::string content = "{\"lock\": 2}";
    write(tmp.path() / "src/lock.json", content);
    const std::vector<CopyMapping> copies{{(tmp.path() / "src").string(), "/app"}};
    std::map<std::string, std::string> told;
    ArchiveStream stream(
        copies, IgnoreSet{}, [](liveupdate::common::LogLevel, std::string_view) {},
        // Its header is on its way: the save truncates it now.
        [&](const std::string &path) {
            if (path == "/app/lock.json") fs::resize_file(tmp.path() / "src/lock.json", 0);
        },
        {}, [&](const std::string &path, const std::string &digest) { told[path] = digest; });
    const std::string bytes = read_rest(stream.c_stream());
    BOOST_TEST(!stream.finish(false).has_value());
    const auto entries = read_tar(bytes);
    BOOST_TEST_REQUIRE(entries.count("app/lock.json") == 1u);
    const std::string padded(content.size(), '\0');
    BOOST_TEST(entries.at("app/lock.json").content == padded);
    liveupdate::sync_back::ContentDigest zeros;
    zeros.update(padded.data(), padded.size());
    BOOST_TEST_REQUIRE(told.count("/app/lock.json") == 1u);
    BOOST_TEST(told["/app/lock.json"] == zeros.text());
}

BOOST_AUTO_TEST_SUITE_END()
