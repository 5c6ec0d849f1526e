// The synced journal (issue 19): what liveupdate put in each container,
// journaled so that a restarted daemon knows it, and told to the archive
// builder's hook before an entry's bytes are written.
#include <signal.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <boost/test/unit_test.hpp>

#include "host/core/archive_builder.hpp"
#include "host/core/host_error.hpp"
#include "host/core/synced_journal.hpp"
#include "host/core/synced_pruning.hpp"
#include "tests/support/temp_dir.hpp"

using namespace liveupdate::host;
using liveupdate::test::TempDir;
namespace fs = std::filesystem;

namespace {

// The one file in dir: the journal of the test's one container.
fs::path only_journal_in(const TempDir &dir) {
    fs::path found;
    for (const auto &e : fs::directory_iterator(dir.path())) found = e.path();
    return found;
}

std::string text_of(const fs::path &p) {
    std::ifstream in(p);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

const SyncedKey kKey = SyncedKey::of("lu", "docker", "3f2a", "");

}  // namespace

BOOST_AUTO_TEST_SUITE(synced_journal)

// The daemon's start verifies the containers an earlier run synced into; one
// this run synced into first has nothing from before to repair.
BOOST_AUTO_TEST_CASE(a_record_this_run_began_holds_no_earlier_paths) {
    TempDir dir{"lu-synced-test"};
    SyncedJournals journals(dir.path().string());
    journals.journal(kKey)->add({"/app", "/app/a.txt"});
    BOOST_TEST(!journals.has_earlier_paths(kKey));
    SyncedJournals next_run(dir.path().string());
    BOOST_TEST(next_run.has_earlier_paths(kKey));
    next_run.journal(kKey)->remove({"/app"});
    BOOST_TEST(!next_run.has_earlier_paths(kKey));
}

BOOST_AUTO_TEST_CASE(a_reopened_record_holds_what_was_added_and_not_what_was_removed) {
    TempDir dir{"lu-synced-test"};
    {
        SyncedJournals journals(dir.path().string());
        auto j = journals.journal(kKey);
        j->add({"/app", "/app/a.txt", "/app/old", "/app/old/x", "/app/old-y"});
        j->remove({"/app/old"});
    }
    SyncedJournals again(dir.path().string());
    BOOST_TEST(again.has_earlier_paths(kKey));
    BOOST_TEST(!again.has_earlier_paths(SyncedKey::of("lu", "docker", "other", "")));
    const SyncedPaths paths = again.journal(kKey)->paths();
    BOOST_TEST((paths == SyncedPaths{"/app", "/app/a.txt", "/app/old-y"}));
    // Opening compacted it: a header and one line per path.
    BOOST_TEST(text_of(only_journal_in(dir)) ==
               "{\"liveupdate-synced\":1,\"liveUpdate\":\"lu\",\"via\":\"docker\",\"container\":\"id:3f2a\"}\n"
               "+\"/app\"\n+\"/app/a.txt\"\n+\"/app/old-y\"\n");
}

BOOST_AUTO_TEST_CASE(a_path_already_recorded_costs_no_write) {
    TempDir dir{"lu-synced-test"};
    SyncedJournals journals(dir.path().string());
    auto j = journals.journal(kKey);
    j->add({"/app/a.txt"});
    const auto size = fs::file_size(only_journal_in(dir));
    j->add({"/app/a.txt"});
    BOOST_TEST(fs::file_size(only_journal_in(dir)) == size);
}

BOOST_AUTO_TEST_CASE(a_line_torn_by_a_crash_is_ignored_and_a_malformed_one_is_named) {
    TempDir dir{"lu-synced-test"};
    {
        SyncedJournals journals(dir.path().string());
        journals.journal(kKey)->add({"/app/a.txt"});
    }
    const fs::path file = only_journal_in(dir);
    std::ofstream(file, std::ios::app) << "+\"/app/b.t";  // no newline: the write never finished
    BOOST_TEST((SyncedJournals(dir.path().string()).journal(kKey)->paths() == SyncedPaths{"/app/a.txt"}));
    std::ofstream(file, std::ios::app) << "garbage\n";
    try {
        SyncedJournals(dir.path().string()).journal(kKey);
        BOOST_FAIL("a malformed journal was taken");
    } catch (const HostError &e) {
        BOOST_TEST(std::string(e.what()).find(file.string() + ":3") != std::string::npos, e.what());
    }
}

BOOST_AUTO_TEST_CASE(a_write_that_fails_throws_and_leaves_no_partial_line) {
    TempDir dir{"lu-synced-test"};
    SyncedJournals journals(dir.path().string());
    auto j = journals.journal(kKey);
    j->add({"/app/a.txt"});
    // A full disk, as a file size limit: the next append cannot be written whole.
    const auto size = fs::file_size(only_journal_in(dir));
    struct rlimit before {};
    BOOST_TEST_REQUIRE(::getrlimit(RLIMIT_FSIZE, &before) == 0);
    ::signal(SIGXFSZ, SIG_IGN);
    struct rlimit small = before;
    small.rlim_cur = size + 5;
    BOOST_TEST_REQUIRE(::setrlimit(RLIMIT_FSIZE, &small) == 0);
    bool thrown = false;
    try {
        j->add({"/app/a-much-longer-name.txt"});
    } catch (const HostError &) {
        thrown = true;
    }
    BOOST_TEST_REQUIRE(::setrlimit(RLIMIT_FSIZE, &before) == 0);
    BOOST_TEST(thrown);
    BOOST_TEST((j->paths() == SyncedPaths{"/app/a.txt"}));
    BOOST_TEST(fs::file_size(only_journal_in(dir)) == size);
    j->add({"/app/c.txt"});  // the journal goes on whole
    BOOST_TEST((SyncedJournals(dir.path().string()).journal(kKey)->paths() == SyncedPaths{"/app/a.txt", "/app/c.txt"}));
}

namespace {

std::vector<std::string> vendor_paths(int count) {
    std::vector<std::string> paths{"/app/vendor"};
    for (int i = 0; i < count; ++i) paths.push_back("/app/vendor/package-" + std::to_string(i) + "/index.js");
    return paths;
}

}  // namespace

// Issue 33 item 7: `rm -rf vendor && npm install` over and over leaves dead
// lines behind; once they outnumber the live ones the journal is rewritten
// while open, so its size follows what it holds, not how often it changed.
// Sync back's agreed digests live in the same journal, and a journal written
// before they existed still opens.
BOOST_AUTO_TEST_CASE(agreed_digests_survive_a_reopen_and_older_journals_open) {
    TempDir dir{"lu-synced-test"};
    {
        SyncedJournals journals(dir.path().string());
        journals.journal(kKey)->add({"/app/a.txt"});
    }
    const fs::path file = only_journal_in(dir);
    // What a daemon before sync back wrote: header and "+"/"-" lines only.
    std::ofstream(file, std::ios::app) << "+\"/app/b.txt\"\n-\"/app/b.txt\"\n";
    {
        SyncedJournals journals(dir.path().string());
        auto j = journals.journal(kKey);
        BOOST_TEST((j->paths() == SyncedPaths{"/app/a.txt"}));
        BOOST_TEST(j->agreements().empty());
        j->agree("/app/package-lock.json", "00000000000000aa");
        j->agree("/app/db/m1.py", "00000000000000bb");
        j->agree("/app/db/m2.py", "00000000000000cc");
        j->agree("/app/package-lock.json", "00000000000000ab");
        j->forget("/app/db/m2.py");
        BOOST_TEST(j->agreed("/app/package-lock.json").value_or("") == "00000000000000ab");
        BOOST_TEST(!j->agreed("/app/db/m2.py"));
    }
    {
        SyncedJournals journals(dir.path().string());
        auto j = journals.journal(kKey);
        BOOST_TEST((j->agreements() == AgreedDigests{{"/app/db/m1.py", "00000000000000bb"},
                                                     {"/app/package-lock.json", "00000000000000ab"}}));
        BOOST_TEST((j->paths() == SyncedPaths{"/app/a.txt"}));
        // A folder deleted drops the agreements beneath it, even where no "+" path was.
        j->remove({"/app/db"});
        BOOST_TEST(!j->agreed("/app/db/m1.py"));
    }
    const auto reopened = SyncedJournals(dir.path().string()).journal(kKey);
    BOOST_TEST((reopened->agreements() == AgreedDigests{{"/app/package-lock.json", "00000000000000ab"}}));
    BOOST_TEST(text_of(file).find("=[\"/app/package-lock.json\",\"00000000000000ab\"]\n") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(a_journal_mostly_dead_is_compacted_while_open) {
    TempDir dir{"lu-synced-test"};
    SyncedJournals journals(dir.path().string());
    auto j = journals.journal(kKey);
    j->add({"/app/main.js"});
    j->add({"/app/old.js"});
    j->remove({"/app/old.js"});
    BOOST_TEST(!j->compact_if_due());  // a few dead lines: not worth a rewrite
    const auto vendor = vendor_paths(2000);
    j->add(vendor);
    const auto one_cycle = fs::file_size(only_journal_in(dir));
    std::uintmax_t largest = 0;
    for (int cycle = 0; cycle < 6; ++cycle) {
        j->remove({"/app/vendor"});
        j->compact_if_due();
        j->add(vendor);
        j->compact_if_due();
        largest = std::max(largest, fs::file_size(only_journal_in(dir)));
    }
    BOOST_TEST(largest < 2 * one_cycle, largest << " bytes after cycles of " << one_cycle);
    // Appends after a rewrite go to the file that is there, and survive a reopen.
    j->add({"/app/after.js"});
    j->sync();
    BOOST_TEST(!j->has_unsynced());
    SyncedPaths expected(vendor.begin(), vendor.end());
    expected.insert({"/app/main.js", "/app/after.js"});
    BOOST_TEST((SyncedJournals(dir.path().string()).journal(kKey)->paths() == expected));
    BOOST_TEST(!fs::exists(only_journal_in(dir).string() + ".compacting"));
}

BOOST_AUTO_TEST_CASE(covers_is_a_path_or_a_folder_above_it) {
    const SyncedPaths paths{"/app/dir"};
    BOOST_TEST(covers(paths, "/app/dir"));
    BOOST_TEST(covers(paths, "/app/dir/x/y"));
    BOOST_TEST(!covers(paths, "/app/dir-x"));
    BOOST_TEST(!covers(paths, "/app"));
}

BOOST_AUTO_TEST_CASE(local_containers_are_known_by_their_root_others_by_id) {
    BOOST_TEST(SyncedKey::of("lu", "local", "id-changes-each-run", "/tmp/root").container == "root:/tmp/root");
    BOOST_TEST(SyncedKey::of("lu", "docker", "3f2a", "").container == "id:3f2a");
}

BOOST_AUTO_TEST_CASE(the_archive_names_an_entry_before_its_bytes_and_a_refusal_aborts_it) {
    TempDir dir{"lu-synced-test"};
    const fs::path src = dir.path() / "src";
    fs::create_directories(src);
    std::ofstream(src / "a.txt") << "alpha";
    std::ofstream(src / "b.txt") << "beta";
    std::vector<std::string> named;
    ArchiveStream stream(
        {{src.string(), "/app"}}, liveupdate::common::IgnoreSet{},
        [](liveupdate::common::LogLevel, std::string_view) {},
        [&](const std::string &path) {
            if (path == "/app/b.txt") throw HostError("no room", path, "the journal is full");
            named.push_back(path);
        });
    std::string bytes;
    char buffer[512];
    std::int64_t n = 0;
    while ((n = stream.read(buffer, sizeof buffer)) > 0) bytes.append(buffer, static_cast<std::size_t>(n));
    BOOST_TEST(n == -1);
    BOOST_TEST((named == std::vector<std::string>{"/app", "/app/a.txt"}));
    BOOST_TEST(bytes.find("app/b.txt") == std::string::npos);
    BOOST_TEST(stream.finish(false).value_or("").find("the journal is full") != std::string::npos);
}

// Issue 19 (h14 item 3): the lines naming an entry are durable before any
// byte of it leaves, with one sync per chunk handed out, not one per path.
BOOST_AUTO_TEST_CASE(the_record_is_synced_before_each_chunk_leaves_not_per_path) {
    TempDir dir{"lu-synced-test"};
    const fs::path src = dir.path() / "src";
    fs::create_directories(src);
    for (int i = 0; i < 20; ++i) std::ofstream(src / ("f" + std::to_string(i))) << "content " << i;
    SyncedJournals journals((dir.path() / "state").string());
    const auto journal = journals.journal(SyncedKey::of("lu", "docker", "c1", ""));
    int syncs = 0;
    bool unsynced_bytes_left = false;
    ArchiveStream stream(
        {{src.string(), "/app"}}, liveupdate::common::IgnoreSet{},
        [](liveupdate::common::LogLevel, std::string_view) {}, [&](const std::string &path) { journal->add({path}); },
        [&] {
            ++syncs;
            journal->sync();
        });
    char buffer[64 * 1024];
    for (std::int64_t n = 0; (n = stream.read(buffer, sizeof buffer)) > 0;)
        if (journal->has_unsynced()) unsynced_bytes_left = true;
    BOOST_TEST(!stream.finish(false).has_value());
    BOOST_TEST(journal->paths().size() == 21u);
    BOOST_TEST(!unsynced_bytes_left);
    BOOST_TEST(syncs >= 1);
    BOOST_TEST(syncs < 21);
}

// Sync back: a path the forward sync carries now is counted per update (two
// replicas' updates may overlap), and is not kept past the daemon.
BOOST_AUTO_TEST_CASE(a_path_is_forwarding_until_every_update_carrying_it_ended) {
    TempDir dir{"lu-synced-test"};
    SyncedJournals journals(dir.path().string());
    auto j = journals.journal(kKey);
    BOOST_TEST(!j->is_forwarding("/app/package-lock.json"));
    j->forwarding("/app/package-lock.json");
    j->forwarding("/app/package-lock.json");
    BOOST_TEST(j->is_forwarding("/app/package-lock.json"));
    BOOST_TEST(!j->is_forwarding("/app/other.json"));
    j->forwarded("/app/package-lock.json");
    BOOST_TEST(j->is_forwarding("/app/package-lock.json"));
    j->forwarded("/app/package-lock.json");
    BOOST_TEST(!j->is_forwarding("/app/package-lock.json"));
    j->forwarded("/app/package-lock.json");  // one too many: no harm
    BOOST_TEST(!j->is_forwarding("/app/package-lock.json"));
}

BOOST_AUTO_TEST_CASE(a_sync_that_fails_fails_the_read) {
    TempDir dir{"lu-synced-test"};
    const fs::path src = dir.path() / "src";
    fs::create_directories(src);
    std::ofstream(src / "a.txt") << "alpha";
    ArchiveStream stream(
        {{src.string(), "/app"}}, liveupdate::common::IgnoreSet{},
        [](liveupdate::common::LogLevel, std::string_view) {}, {},
        [] { throw HostError("cannot keep the synced journal", "/state/x.journal", "cannot sync: EIO"); });
    char buffer[512];
    BOOST_TEST(stream.read(buffer, sizeof buffer) == -1);
    BOOST_TEST(stream.finish(false).value_or("").find("cannot sync: EIO") != std::string::npos);
}

// Issue 19 (h14 item 2): the journal of a container known to be gone is
// removed; one whose container exists, or cannot be told, stays.
BOOST_AUTO_TEST_CASE(journals_of_gone_containers_are_pruned_and_no_other) {
    TempDir dir{"lu-synced-test"};
    const fs::path kept_root = dir.path() / "kept-root";
    fs::create_directories(kept_root);
    const std::string state = (dir.path() / "state").string();
    const SyncedKey gone_root = SyncedKey::of("lu", "local", "", (dir.path() / "removed-root").string());
    const SyncedKey live_root = SyncedKey::of("lu", "local", "", kept_root.string());
    const SyncedKey gone_id = SyncedKey::of("lu", "docker", "dead", "");
    const SyncedKey live_id = SyncedKey::of("lu", "docker", "alive", "");
    const SyncedKey unknown_id = SyncedKey::of("lu", "docker", "engine-down", "");
    const SyncedKey other_via = SyncedKey::of("lu", "kubernetes", "dead", "");
    {
        SyncedJournals journals(state);
        for (const auto &key : {gone_root, live_root, gone_id, live_id, unknown_id, other_via})
            journals.journal(key)->add({"/app/a.txt"});
    }
    std::ofstream(fs::path(state) / "0000000000000000.journal") << "not a journal\n";
    const DockerPresenceFn engine = [](const std::string &id) {
        return id == "dead"    ? ContainerPresence::gone
               : id == "alive" ? ContainerPresence::present
                               : ContainerPresence::unknown;
    };
    SyncedJournals journals(state);
    const auto open_before = journals.journal(gone_id);  // open in this daemon: closed and removed too
    std::vector<std::string> removed;
    prune_gone_synced_journals(journals, "docker", engine, [&](const SyncedKey &k) { removed.push_back(k.container); });
    std::sort(removed.begin(), removed.end());
    BOOST_TEST((removed == std::vector<std::string>{"id:dead", "root:" + (dir.path() / "removed-root").string()}));
    BOOST_TEST(!journals.has_earlier_paths(gone_id));
    BOOST_TEST(!journals.has_earlier_paths(gone_root));
    for (const auto &key : {live_root, live_id, unknown_id, other_via}) BOOST_TEST(journals.has_earlier_paths(key));
    BOOST_TEST(fs::exists(fs::path(state) / "0000000000000000.journal"));
    // Without an engine to ask, no docker journal goes.
    BOOST_TEST(journals.prune([](const SyncedKey &k) { return synced_container_gone(k, "", {}); }).empty());
}

// Sync back's pending agreements: seen by every reader at once, their
// lines written only when the flusher says the files are on the disk; a
// failed flush takes them back (and the later ones judged against them); a
// forward agreement supersedes them; a compaction writes none of them.
BOOST_AUTO_TEST_CASE(a_pending_agreement_is_seen_at_once_and_written_only_after_its_flush) {
    TempDir dir{"lu-synced-test"};
    SyncedJournals journals(dir.path().string());
    const auto journal = journals.journal(kKey);
    const fs::path file = only_journal_in(dir);
    const std::uint64_t first = journal->agree_pending("/app/a", "d1");
    BOOST_TEST(journal->agreed("/app/a").value_or("") == "d1");
    BOOST_TEST(text_of(file).find("d1") == std::string::npos);
    journal->write_pending({first});
    BOOST_TEST(text_of(file).find("[\"/app/a\",\"d1\"]") != std::string::npos);
    // A failed flush: back to the written agreement, the later pending one with it.
    const std::uint64_t failed = journal->agree_pending("/app/a", "d2");
    const std::uint64_t later = journal->agree_pending("/app/a", "d3");
    BOOST_TEST(journal->agreed("/app/a").value_or("") == "d3");
    journal->drop_pending({failed});
    BOOST_TEST(journal->agreed("/app/a").value_or("") == "d1");
    journal->write_pending({later});
    BOOST_TEST(text_of(file).find("d3") == std::string::npos);
    // A pending delete, written.
    journal->write_pending({journal->agree_pending("/app/a", std::nullopt)});
    BOOST_TEST(!journal->agreed("/app/a").has_value());
    BOOST_TEST(text_of(file).find("~\"/app/a\"") != std::string::npos);
    SyncedJournals next_run(dir.path().string());
    BOOST_TEST(!next_run.journal(kKey)->agreed("/app/a").has_value());
}

BOOST_AUTO_TEST_CASE(a_forward_agreement_supersedes_a_pending_one_and_compaction_leaves_it_out) {
    TempDir dir{"lu-synced-test"};
    SyncedJournals journals(dir.path().string());
    const auto journal = journals.journal(kKey);
    const fs::path file = only_journal_in(dir);
    const std::uint64_t superseded = journal->agree_pending("/app/a", "back");
    journal->agree("/app/a", "forward");
    journal->write_pending({superseded});
    BOOST_TEST(journal->agreed("/app/a").value_or("") == "forward");
    BOOST_TEST(text_of(file).find("back") == std::string::npos);
    journal->agree_pending("/app/a", "pending");
    for (int i = 0; i < 1100; ++i) {
        journal->add({"/app/x" + std::to_string(i)});
        journal->remove({"/app/x" + std::to_string(i)});
    }
    BOOST_TEST(journal->compact_if_due());
    BOOST_TEST(text_of(file).find("pending") == std::string::npos);
    BOOST_TEST(text_of(file).find("[\"/app/a\",\"forward\"]") != std::string::npos);
    BOOST_TEST(journal->agreed("/app/a").value_or("") == "pending");
}

BOOST_AUTO_TEST_SUITE_END()
