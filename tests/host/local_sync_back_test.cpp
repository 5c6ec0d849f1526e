// Sync back into the developer's folder from a local container's folder
// (host/sync_back): files come back through a temporary file with their mode,
// conflicts and held deletes leave both sides alone, and a hostile container
// (names with "..", symlinks to outside, a FIFO, a file over the limit)
// writes nothing outside localPath, nor replaces a local file saved while
// a container file was copied beside it; a full local disk is tried again.
#define BOOST_TEST_MODULE local_sync_back
#include <fcntl.h>
#include <sys/inotify.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include <boost/test/unit_test.hpp>

#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <future>
#include <iterator>
#include <map>
#include <mutex>
#include <sstream>
#include <thread>
#include <vector>

#include "common/sync_back/content_digest.hpp"
#include "host/sync_back/agent_sync_back.hpp"
#include "host/sync_back/beneath_files.hpp"
#include "host/sync_back/held_deletes.hpp"
#include "host/sync_back/held_reports.hpp"
#include "host/sync_back/local_sync_back.hpp"
#include "host/sync_back/local_sync_back_watch.hpp"
#include "host/sync_back/sync_back_report.hpp"
#include "tests/support/temp_dir.hpp"

namespace fs = std::filesystem;
namespace sb = liveupdate::sync_back;
using namespace liveupdate::host;
using liveupdate::test::TempDir;
using Kind = sync_back::SyncBackEvent::Kind;

namespace {

std::string text_of(const fs::path &p) {
    std::ifstream in(p);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

void write(const fs::path &p, const std::string &text) {
    fs::create_directories(p.parent_path());
    std::ofstream(p, std::ios::trunc) << text;
}

// A local container's folder (its /app synced from local/), the developer's
// folder, a folder outside both, and the synced journals.
struct Folders {
    TempDir dir{"lu-sync-back-test"};
    fs::path top = dir.path();
    fs::path container, app, local, outside, state;
    std::shared_ptr<SyncedJournal> journal;
    explicit Folders() {
        container = top / "container";
        app = container / "app";
        local = top / "local";
        outside = top / "outside";
        state = top / "state";
        for (const auto &d : {app, local, outside, state}) fs::create_directories(d);
        write(app / "main.js", "app");  // the sync root holds something
        write(local / "main.js", "app");
        journal = std::make_shared<SyncedJournal>((state / "j").string(),
                                                  SyncedKey::of("lu", "local", "", container.string()));
    }
    sync_back::LocalSyncBack sync_back(sb::Limits limits = {}) {
        return sync_back::LocalSyncBack(
            sb::SyncBackMapping(local.string(), "/app", {"package-lock.json", "db", "gen/**"}), container.string(),
            journal, limits);
    }
    bool outside_empty() const { return fs::is_empty(outside); }
};

std::string digest_of(const fs::path &p) {
    const auto f = sync_back::open_beneath(p.parent_path().string(), p.filename().string(), UINT64_MAX);
    return f.state.digest;
}

bool no_temporary_left(const fs::path &dir) {
    for (const auto &e : fs::recursive_directory_iterator(dir))
        if (e.path().filename().string().starts_with(".lu-sync-back-")) return false;
    return true;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(local_sync_back)

BOOST_AUTO_TEST_CASE(a_container_file_comes_back_with_its_mode_and_is_agreed) {
    Folders f;
    auto back = f.sync_back();
    write(f.app / "db" / "migrations" / "0001.py", "create table");
    fs::permissions(f.app / "db" / "migrations" / "0001.py", fs::perms(0750));
    const auto e = back.on_container_change("/app/db/migrations/0001.py", 0);
    BOOST_TEST((e.kind == Kind::written), e.message);
    const fs::path landed = f.local / "db" / "migrations" / "0001.py";
    BOOST_TEST(text_of(landed) == "create table");
    BOOST_TEST(static_cast<int>(fs::status(landed).permissions() & fs::perms::all) == 0750);
    BOOST_TEST(no_temporary_left(f.local));
    BOOST_TEST(f.journal->agreed("/app/db/migrations/0001.py").value_or("") == digest_of(landed));
    // No echo: what the local watcher now sees is the agreement.
    BOOST_TEST(sb::is_echo(f.journal->agreed("/app/db/migrations/0001.py"), sb::PathState::file(digest_of(landed))));
    // A later container change of a file unchanged locally comes back too.
    write(f.app / "db" / "migrations" / "0001.py", "create table v2");
    BOOST_TEST((back.on_container_change("/app/db/migrations/0001.py", 0).kind == Kind::written));
    BOOST_TEST(text_of(landed) == "create table v2");
}

// A batch of files that come back is flushed to disk on the flusher's
// thread, after its files are in place and before any of its agreement
// lines reach the journal: after a power loss a line never names bytes the
// disk does not hold. Meanwhile every reader sees the batch's agreements.
BOOST_AUTO_TEST_CASE(a_batch_is_flushed_before_its_agreement_lines_are_written) {
    Folders f;
    auto back = f.sync_back();
    write(f.local / "gen" / "old.txt", "old");
    write(f.app / "gen" / "old.txt", "old");
    f.journal->agree("/app/gen/old.txt", digest_of(f.local / "gen" / "old.txt"));
    const fs::path journal_file = f.state / "j";
    struct AtFlush {
        int flushes = 0;
        bool reached = false;
        std::string files, journal;
        bool old_gone = false, agreed_in_memory = false;
    } at;
    back.set_flusher(nullptr, [&](sync_back::WrittenFileSystems &written) {
        ++at.flushes;
        at.reached = !written.empty();
        at.files = text_of(f.local / "gen" / "a.txt") + "|" + text_of(f.local / "gen" / "b.txt");
        at.old_gone = !fs::exists(f.local / "gen" / "old.txt");
        at.journal = text_of(journal_file);
        at.agreed_in_memory = f.journal->agreed("/app/gen/a.txt").has_value();
        return std::string();
    });
    for (const char *name : {"a.txt", "b.txt"}) {
        write(f.app / "gen" / name, std::string("v1 ") + name);
        BOOST_TEST((back.on_container_change(std::string("/app/gen/") + name, 0).kind == Kind::written), name);
    }
    fs::remove(f.app / "gen" / "old.txt");
    BOOST_TEST((back.on_container_change("/app/gen/old.txt", 0).kind == Kind::deleted));
    back.end_batch();
    back.wait_settled();
    BOOST_TEST(at.flushes == 1);
    BOOST_TEST(at.reached);
    BOOST_TEST(at.files == "v1 a.txt|v1 b.txt");
    BOOST_TEST(at.old_gone);
    BOOST_TEST(at.agreed_in_memory);
    BOOST_TEST(at.journal.find("/app/gen/a.txt") == std::string::npos, at.journal);
    BOOST_TEST(at.journal.find("~\"/app/gen/old.txt\"") == std::string::npos, at.journal);
    const std::string after = text_of(journal_file);
    for (const char *name : {"a.txt", "b.txt"})
        BOOST_TEST(after.find("[\"/app/gen/" + std::string(name) + "\",\"" + digest_of(f.local / "gen" / name) +
                              "\"]") != std::string::npos,
                   after);
    BOOST_TEST(after.find("~\"/app/gen/old.txt\"") != std::string::npos, after);
    BOOST_TEST(!f.journal->agreed("/app/gen/old.txt").has_value());
    // Nothing written since: nothing to flush.
    back.end_batch();
    back.wait_settled();
    BOOST_TEST(at.flushes == 1);
}

namespace {

// A flush that waits until the test lets it go, counting its calls; the nth call's answer in answers.
struct HeldFlush {
    std::mutex mutex;
    std::condition_variable changed;
    bool go = false;
    int calls = 0;
    std::vector<std::string> answers;
    std::string operator()(sync_back::WrittenFileSystems &) {
        std::unique_lock lock(mutex);
        const int call = calls++;
        changed.notify_all();
        changed.wait(lock, [&] { return go; });
        return call < static_cast<int>(answers.size()) ? answers[call] : std::string();
    }
    void wait_for_call(int n) {
        std::unique_lock lock(mutex);
        changed.wait(lock, [&] { return calls >= n; });
    }
    void let_go() {
        const std::lock_guard lock(mutex);
        go = true;
        changed.notify_all();
    }
};

}  // namespace

// A later batch is judged against the agreements still waiting for their
// flush, as if agreed: a second version of a file that came back comes
// back too rather than being taken for a conflict with the first.
BOOST_AUTO_TEST_CASE(a_later_batch_is_judged_against_the_pending_agreements) {
    Folders f;
    auto back = f.sync_back();
    HeldFlush held;
    back.set_flusher(nullptr, [&](sync_back::WrittenFileSystems &w) { return held(w); });
    write(f.app / "gen" / "a.txt", "v1");
    BOOST_TEST((back.on_container_change("/app/gen/a.txt", 0).kind == Kind::written));
    back.end_batch();
    held.wait_for_call(1);
    write(f.app / "gen" / "a.txt", "v2");
    const auto e = back.on_container_change("/app/gen/a.txt", 0);
    BOOST_TEST((e.kind == Kind::written), e.message);
    back.end_batch();
    BOOST_TEST(text_of(f.local / "gen" / "a.txt") == "v2");
    BOOST_TEST(text_of(f.state / "j").find("/app/gen/a.txt") == std::string::npos);
    held.let_go();
    back.wait_settled();
    BOOST_TEST(f.journal->agreed("/app/gen/a.txt").value_or("") == digest_of(f.local / "gen" / "a.txt"));
    const SyncedJournal reopened((f.state / "j").string(), SyncedKey::of("lu", "local", "", f.container.string()));
    BOOST_TEST(reopened.agreed("/app/gen/a.txt").value_or("") == digest_of(f.local / "gen" / "a.txt"));
}

// A flush that fails agrees on nothing and says why, naming what; the file
// stays, and judged again it agrees, neither a conflict nor an app change.
BOOST_AUTO_TEST_CASE(a_failed_flush_agrees_on_nothing_and_the_file_is_judged_again) {
    Folders f;
    write(f.local / "gen" / "a.txt", "old");
    write(f.app / "gen" / "a.txt", "old");
    const std::string old_digest = digest_of(f.local / "gen" / "a.txt");
    f.journal->agree("/app/gen/a.txt", old_digest);
    std::mutex mutex;
    std::vector<sync_back::SyncBackEvent> reported;
    {
        auto back = f.sync_back();
        back.set_flusher(
            [&](const sync_back::SyncBackEvent &e) {
                const std::lock_guard lock(mutex);
                reported.push_back(e);
            },
            [](sync_back::WrittenFileSystems &) { return std::string("/dev/gone: the disk is gone"); });
        write(f.app / "gen" / "a.txt", "new");
        BOOST_TEST((back.on_container_change("/app/gen/a.txt", 0).kind == Kind::written));
        back.end_batch();
        back.wait_settled();
        const std::lock_guard lock(mutex);
        BOOST_TEST_REQUIRE(reported.size() == 1u);
        BOOST_TEST((reported[0].kind == Kind::refused));
        BOOST_TEST(reported[0].message.find("/dev/gone: the disk is gone") != std::string::npos, reported[0].message);
        BOOST_TEST((sync_back::report_line({}, reported[0]).level == liveupdate::common::LogLevel::warn));
    }
    BOOST_TEST(text_of(f.local / "gen" / "a.txt") == "new");
    BOOST_TEST(f.journal->agreed("/app/gen/a.txt").value_or("") == old_digest);
    BOOST_TEST(text_of(f.state / "j").find(digest_of(f.local / "gen" / "a.txt")) == std::string::npos);
    // Judged again (its next report, or a restart's look): both sides hold the same.
    auto again = f.sync_back();
    const auto e = again.on_container_change("/app/gen/a.txt", 0);
    BOOST_TEST((e.kind == Kind::agreed), e.message);
    again.end_batch();
    again.wait_settled();
    BOOST_TEST(f.journal->agreed("/app/gen/a.txt").value_or("") == digest_of(f.local / "gen" / "a.txt"));
}

// Stopping waits for the flush under way and flushes what was written
// before it: no hang, and no line for what a failed flush did not make durable.
BOOST_AUTO_TEST_CASE(stop_during_a_flush_waits_for_it_and_agrees_only_on_what_was_flushed) {
    Folders f;
    HeldFlush held;
    held.answers = {"", "the second flush failed"};
    auto back = std::make_unique<sync_back::LocalSyncBack>(sb::SyncBackMapping(f.local.string(), "/app", {"gen/**"}),
                                                           f.container.string(), f.journal);
    back->set_flusher(nullptr, [&](sync_back::WrittenFileSystems &w) { return held(w); });
    write(f.app / "gen" / "a.txt", "a");
    BOOST_TEST((back->on_container_change("/app/gen/a.txt", 0).kind == Kind::written));
    back->end_batch();
    held.wait_for_call(1);
    write(f.app / "gen" / "b.txt", "b");
    BOOST_TEST((back->on_container_change("/app/gen/b.txt", 0).kind == Kind::written));
    std::thread stopping([&] { back.reset(); });  // b's batch ends with it
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    BOOST_TEST(text_of(f.state / "j").find("/app/gen/") == std::string::npos);
    held.let_go();
    stopping.join();
    BOOST_TEST(held.calls == 2);
    const SyncedJournal reopened((f.state / "j").string(), SyncedKey::of("lu", "local", "", f.container.string()));
    BOOST_TEST(reopened.agreed("/app/gen/a.txt").value_or("") == digest_of(f.local / "gen" / "a.txt"));
    BOOST_TEST(!reopened.agreed("/app/gen/b.txt").has_value());
    BOOST_TEST(!f.journal->agreed("/app/gen/b.txt").has_value());
}

// A flush that hangs (NFS, a dying disk) does not hang the stop: it returns
// after AgreementFlusher::kStopLimit, says so at warn, and leaves the
// agreements it could not make durable without a line (judged again at the
// next start); the thread left to the flush writes none when it ends either.
BOOST_AUTO_TEST_CASE(stop_during_a_hung_flush_returns_and_writes_no_agreement) {
    Folders f;
    auto held = std::make_shared<HeldFlush>();  // the thread left behind may still be in it after the stop
    std::mutex mutex;
    std::vector<sync_back::SyncBackEvent> reported;
    auto back = std::make_unique<sync_back::LocalSyncBack>(sb::SyncBackMapping(f.local.string(), "/app", {"gen/**"}),
                                                           f.container.string(), f.journal);
    back->set_flusher(
        [&](const sync_back::SyncBackEvent &e) {
            const std::lock_guard lock(mutex);
            reported.push_back(e);
        },
        [held](sync_back::WrittenFileSystems &w) { return (*held)(w); });
    write(f.app / "gen" / "a.txt", "a");
    BOOST_TEST((back->on_container_change("/app/gen/a.txt", 0).kind == Kind::written));
    back->end_batch();
    held->wait_for_call(1);
    write(f.app / "gen" / "b.txt", "b");
    BOOST_TEST((back->on_container_change("/app/gen/b.txt", 0).kind == Kind::written));
    std::promise<void> stopped;
    std::thread stopping([&] {
        back.reset();  // b's batch ends with it
        stopped.set_value();
    });
    const bool returned = stopped.get_future().wait_for(sync_back::AgreementFlusher::kStopLimit +
                                                        std::chrono::seconds(5)) == std::future_status::ready;
    BOOST_TEST(returned);
    if (!returned) held->let_go();  // an unbounded stop: let it end the test
    stopping.join();
    {
        const std::lock_guard lock(mutex);
        BOOST_TEST_REQUIRE(reported.size() == 1u);
        BOOST_TEST((sync_back::report_line({}, reported[0]).level == liveupdate::common::LogLevel::warn));
        BOOST_TEST(reported[0].message.find("2 agreement(s) left unwritten") != std::string::npos, reported[0].message);
    }
    BOOST_TEST(text_of(f.state / "j").find("/app/gen/") == std::string::npos);
    BOOST_TEST(fs::exists(f.local / "gen" / "a.txt"));  // the files stay: only their agreements wait
    held->let_go();
    // Its flush ended after the stop: it takes them back rather than write them.
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (f.journal->agreed("/app/gen/a.txt") && std::chrono::steady_clock::now() < deadline)
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
    BOOST_TEST(!f.journal->agreed("/app/gen/a.txt").has_value());
    BOOST_TEST(!f.journal->agreed("/app/gen/b.txt").has_value());
    BOOST_TEST(text_of(f.state / "j").find("/app/gen/") == std::string::npos);
    BOOST_TEST(held->calls == 1);
}

// The flush reaches the file system of each folder written in, once each.
BOOST_AUTO_TEST_CASE(written_file_systems_flush_each_once_and_name_what_failed) {
    const TempDir dir("lu-written-fs-test");
    fs::create_directories(dir.path() / "a");
    sync_back::WrittenFileSystems written;
    BOOST_TEST(written.empty());
    for (const fs::path &folder : {dir.path(), dir.path() / "a"}) {
        const int fd = ::open(folder.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC);
        BOOST_TEST_REQUIRE(fd >= 0);
        written.add(fd, (folder / "x").string());
        ::close(fd);
    }
    BOOST_TEST(!written.empty());
    BOOST_TEST(written.flush() == "");
    BOOST_TEST(written.empty());
    written.add(-1, "/nowhere/x");
    const std::string error = written.flush();
    BOOST_TEST(error.find("/nowhere/x") != std::string::npos, error);
    BOOST_TEST(written.empty());
}

BOOST_AUTO_TEST_CASE(a_mode_changed_in_the_container_alone_comes_back_without_touching_the_content) {
    Folders f;
    auto back = f.sync_back();
    const fs::path container_file = f.app / "package-lock.json";
    const fs::path landed = f.local / "package-lock.json";
    write(container_file, "{}");
    fs::permissions(container_file, fs::perms(0644));
    BOOST_TEST((back.on_container_change("/app/package-lock.json", 0).kind == Kind::written));
    const auto inode = [](const fs::path &p) {
        struct stat st {};
        return ::stat(p.c_str(), &st) == 0 ? st.st_ino : 0;
    };
    const ino_t before = inode(landed);
    // Written, closed, then made executable: the change that reaches the host is the mode's alone.
    fs::permissions(container_file, fs::perms(0750));
    const auto e = back.on_container_change("/app/package-lock.json", 0);
    BOOST_TEST((e.kind == Kind::written), e.message);
    BOOST_TEST(static_cast<int>(fs::status(landed).permissions() & fs::perms::all) == 0750);
    BOOST_TEST(inode(landed) == before);
    BOOST_TEST(text_of(landed) == "{}");
    // Already so: both sides agree, nothing is written.
    BOOST_TEST((back.on_container_change("/app/package-lock.json", 0).kind == Kind::agreed));
    // Permission bits only: a set-id bit never comes.
    BOOST_REQUIRE(::chmod(container_file.c_str(), 04755) == 0);
    BOOST_TEST((back.on_container_change("/app/package-lock.json", 0).kind == Kind::written));
    BOOST_TEST(static_cast<int>(fs::status(landed).permissions() & fs::perms::mask) == 0755);
    // A local edit meanwhile is the forward sync's: the container's mode does not come over it.
    write(landed, "{\"local\": 1}");
    fs::permissions(container_file, fs::perms(0700));
    BOOST_TEST((back.on_container_change("/app/package-lock.json", 0).kind != Kind::written));
    BOOST_TEST(static_cast<int>(fs::status(landed).permissions() & fs::perms::all) == 0755);
}

// While the forward sync carries a file, the container's copy (the old one,
// none, half the new one) is the forward sync's: nothing comes back of it.
BOOST_AUTO_TEST_CASE(a_file_the_forward_sync_carries_does_not_come_back_meanwhile) {
    Folders f;
    auto back = f.sync_back();
    write(f.local / "package-lock.json", "v2");
    f.journal->agree("/app/package-lock.json", digest_of(f.local / "package-lock.json"));
    f.journal->forwarding("/app/package-lock.json");
    write(f.app / "package-lock.json", "v1");  // what the container holds until the update lands
    BOOST_TEST((back.on_container_change("/app/package-lock.json", 0).kind == Kind::in_flight));
    BOOST_TEST(text_of(f.local / "package-lock.json") == "v2");
    BOOST_TEST(back.conflicts().empty());
    f.journal->forwarded("/app/package-lock.json");
    // Once the update ended, a container change is judged again.
    write(f.app / "package-lock.json", "v3");
    BOOST_TEST((back.on_container_change("/app/package-lock.json", 0).kind == Kind::written));
    BOOST_TEST(text_of(f.local / "package-lock.json") == "v3");
}

// A burst of saves outruns the container's reports: each look at the
// container taken while an update was in flight comes after it ended. Such
// a look (an older save the forward sync carried) neither comes back over
// the newest save nor is a conflict; once the container was seen holding
// the agreement, the same bytes written by the app are its change again.
BOOST_AUTO_TEST_CASE(a_late_look_at_a_forward_write_does_not_come_back) {
    Folders f;
    auto back = f.sync_back();
    for (const char *save : {"v1", "v2", "v3"}) {
        write(f.local / "package-lock.json", save);
        f.journal->carried("/app/package-lock.json", digest_of(f.local / "package-lock.json"));
    }
    for (const char *seen : {"v1", "v2"}) {
        write(f.app / "package-lock.json", seen);
        BOOST_TEST((back.on_container_change("/app/package-lock.json", 0).kind == Kind::nothing), seen);
        BOOST_TEST(text_of(f.local / "package-lock.json") == "v3");
    }
    BOOST_TEST(back.conflicts().empty());
    write(f.app / "package-lock.json", "v3");
    BOOST_TEST((back.on_container_change("/app/package-lock.json", 0).kind == Kind::agreed));
    write(f.app / "package-lock.json", "v1");
    BOOST_TEST((back.on_container_change("/app/package-lock.json", 0).kind == Kind::written));
    BOOST_TEST(text_of(f.local / "package-lock.json") == "v1");
}

// An app change the watch sees while a forward update carries the path is
// not lost: held, and judged once the update ended (here it kept the
// container's file, so the agreement is the old one: the change comes back).
BOOST_AUTO_TEST_CASE(a_change_seen_while_an_update_carries_the_path_is_judged_once_it_ended) {
    Folders f;
    write(f.local / "package-lock.json", "v1");
    write(f.app / "package-lock.json", "v1");
    f.journal->agree("/app/package-lock.json", digest_of(f.local / "package-lock.json"));
    std::mutex mutex;
    std::vector<sync_back::SyncBackEvent> events;
    sync_back::LocalSyncBackWatch watch(std::make_unique<sync_back::LocalSyncBack>(f.sync_back()), f.container.string(),
                                        [&](const sync_back::SyncBackEvent &e) {
                                            const std::lock_guard lock(mutex);
                                            events.push_back(e);
                                        });
    f.journal->forwarding("/app/package-lock.json");
    write(f.app / "package-lock.json", "app");
    std::this_thread::sleep_for(std::chrono::milliseconds(300));  // the watch saw it, and holds it
    BOOST_TEST(text_of(f.local / "package-lock.json") == "v1");
    f.journal->forwarded("/app/package-lock.json");
    for (int i = 0; i < 300 && text_of(f.local / "package-lock.json") != "app"; ++i)
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    BOOST_TEST(text_of(f.local / "package-lock.json") == "app");
}

namespace {

// What lu-agent reports of a file holding text.
sync_back::AgentChange agent_change(const std::string &path, const std::string &text) {
    sync_back::AgentChange change;
    change.path = path;
    change.kind = LU_CHANGE_WRITTEN;
    change.mode = 0644;
    change.size = text.size();
    sb::ContentDigest digest;
    digest.update(text.data(), text.size());
    change.hash = sb::digest_value(digest.text()).value_or(0);
    change.has_content = true;
    change.content = text;
    return change;
}

std::string digest_text_of(const std::string &text) {
    sb::ContentDigest digest;
    digest.update(text.data(), text.size());
    return digest.text();
}

// One agent report judged as AgentSyncBack judges it.
sync_back::SyncBackEvent judge_report(sync_back::LocalSyncBack &back, sync_back::AgentChangeFiles &files,
                                      const std::string &text, const std::optional<sb::Agreed> &held_from) {
    const sync_back::AgentChange change = agent_change("package-lock.json", text);
    files.set(change, {.exists = true, .empty = false});
    auto event = back.on_container_change("/app/package-lock.json", 0, held_from);
    files.set({}, {.exists = true, .empty = false});
    return event;
}

}  // namespace

// A report the agent sent while the forward update carried the path (v1 →
// dev), judged once it ended: one of the agreement from before the update is
// a look from before the write (dropped, or it would undo the developer's
// save); the app's bytes after the write come back; and where the container
// kept its file (the agreement is v1 again) the app's bytes are a conflict.
BOOST_AUTO_TEST_CASE(a_held_report_is_judged_against_the_settled_agreement_and_a_stale_one_dropped) {
    const std::string path = "/app/package-lock.json";
    for (const bool kept : {false, true}) {
        Folders f;
        auto files = std::make_shared<sync_back::AgentChangeFiles>();
        sync_back::LocalSyncBack back(sb::SyncBackMapping(f.local.string(), "/app", {"package-lock.json"}), files,
                                      f.journal);
        write(f.local / "package-lock.json", "v1");
        f.journal->agree(path, digest_text_of("v1"));
        BOOST_TEST(f.journal->forwarding(path).value_or("") == digest_text_of("v1"));
        write(f.local / "package-lock.json", "dev");
        f.journal->carried(path, digest_text_of("dev"));
        const auto during = judge_report(back, *files, "app", std::nullopt);
        BOOST_TEST((during.kind == Kind::in_flight));
        BOOST_TEST(during.agreed_before.value_or("") == digest_text_of("v1"));
        if (kept) {
            f.journal->agree(path, digest_text_of("v1"));
            f.journal->uncarried(path, digest_text_of("dev"));
        }
        f.journal->forwarded(path);
        const auto stale = judge_report(back, *files, "v1", during.agreed_before);
        BOOST_TEST((stale.kind == Kind::nothing), kept);
        BOOST_TEST(text_of(f.local / "package-lock.json") == "dev");
        const auto app = judge_report(back, *files, "app", during.agreed_before);
        if (kept) {
            BOOST_TEST((app.kind == Kind::conflict), app.message);
            BOOST_TEST((app.conflict == sb::ConflictKind::both_modified));
            BOOST_TEST(text_of(f.local / "package-lock.json") == "dev");
        } else {
            BOOST_TEST((app.kind == Kind::written), app.message);
            BOOST_TEST(text_of(f.local / "package-lock.json") == "app");
        }
    }
}

// The latest report of a path is held, with the agreement its first
// forwarding began from, until that forwarding ended; one held after it
// ended is handed back at once.
BOOST_AUTO_TEST_CASE(held_reports_are_handed_back_once_the_forwarding_ended) {
    Folders f;
    std::mutex mutex;
    std::vector<sync_back::HeldReports<std::string>::Held> judged;
    const auto judged_count = [&] {
        const std::lock_guard lock(mutex);
        return judged.size();
    };
    sync_back::HeldReports<std::string> held(f.journal, [&](std::vector<sync_back::HeldReports<std::string>::Held> h) {
        const std::lock_guard lock(mutex);
        for (auto &one : h) judged.push_back(std::move(one));
    });
    f.journal->forwarding("/app/a");
    held.hold("/app/a", "first", "00000000000000aa");
    held.hold("/app/a", "second", "00000000000000bb");
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    BOOST_TEST(judged_count() == 0u);
    f.journal->forwarded("/app/a");
    for (int i = 0; i < 300 && judged_count() < 1; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(10));
    {
        const std::lock_guard lock(mutex);
        BOOST_TEST_REQUIRE(judged.size() == 1u);
        BOOST_TEST(judged[0].path == "/app/a");
        BOOST_TEST(judged[0].report == "second");
        BOOST_TEST(judged[0].agreed_before.value_or("") == "00000000000000aa");
    }
    held.hold("/app/b", "late", std::nullopt);
    for (int i = 0; i < 300 && judged_count() < 2; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(10));
    BOOST_TEST(judged_count() == 2u);
    BOOST_TEST(held.size() == 0u);
}

// A forward delete that would take a container change that comes back with
// it is held; one of only what both sides agreed on goes ahead.
BOOST_AUTO_TEST_CASE(a_forward_delete_of_a_container_change_that_comes_back_is_held) {
    Folders f;
    const auto comes_back = [](const std::string &path) { return path.starts_with("/app/gen/"); };
    write(f.app / "gen" / "ours.txt", "ours");
    f.journal->agree("/app/gen/ours.txt", digest_of(f.app / "gen" / "ours.txt"));
    BOOST_TEST(sync_back::held_delete(f.container.string(), "/app/gen", comes_back, *f.journal).empty());
    BOOST_TEST(sync_back::held_delete(f.container.string(), "/app/main.js", comes_back, *f.journal).empty());
    write(f.app / "gen" / "deep" / "app.txt", "the app's");
    BOOST_TEST(sync_back::held_delete(f.container.string(), "/app/gen", comes_back, *f.journal) ==
               "/app/gen is not deleted: /app/gen/deep/app.txt holds a change of the container's that sync back "
               "brings back (never synced forward)");
    fs::remove_all(f.app / "gen" / "deep");
    write(f.app / "gen" / "ours.txt", "changed by the app");
    BOOST_TEST(!sync_back::held_delete(f.container.string(), "/app/gen/ours.txt", comes_back, *f.journal).empty());
    // Beyond a symlink nothing is deleted anyway: not held.
    fs::remove_all(f.app / "gen");
    fs::create_directory_symlink(f.outside, f.app / "gen");
    write(f.outside / "x.txt", "outside");
    BOOST_TEST(sync_back::held_delete(f.container.string(), "/app/gen", comes_back, *f.journal).empty());
    BOOST_TEST(sync_back::held_delete(f.container.string(), "/app/gen/x.txt", comes_back, *f.journal).empty());
}

// The same for a container known only by what its watch reported (docker,
// kubernetes): a reported file at or beneath the delete that both sides never
// agreed on, or agreed on other bytes, holds it.
BOOST_AUTO_TEST_CASE(a_forward_delete_of_a_reported_container_change_is_held) {
    Folders f;
    f.journal->agree("/app/gen/ours.txt", "00000000000000aa");
    std::map<std::string, std::string> reported{{"/app/gen/ours.txt", "00000000000000aa"},
                                                {"/app/gen-other/app.txt", "00000000000000bb"},
                                                {"/app/gen.txt", "00000000000000cc"}};
    BOOST_TEST(sync_back::held_delete_of_reported("/app/gen", reported, *f.journal).empty());
    BOOST_TEST(sync_back::held_delete_of_reported("/app/main.js", reported, *f.journal).empty());
    reported["/app/gen/deep/app.txt"] = "00000000000000dd";
    BOOST_TEST(sync_back::held_delete_of_reported("/app/gen/", reported, *f.journal) ==
               "/app/gen is not deleted: /app/gen/deep/app.txt holds a change of the container's that sync back "
               "brings back (never synced forward)");
    reported.erase("/app/gen/deep/app.txt");
    reported["/app/gen/ours.txt"] = "00000000000000ee";  // the app rewrote ours
    BOOST_TEST(sync_back::held_delete_of_reported("/app/gen/ours.txt", reported, *f.journal) ==
               "/app/gen/ours.txt is not deleted: /app/gen/ours.txt holds a change of the container's that sync back "
               "brings back");
    BOOST_TEST(!sync_back::held_delete_of_reported("/app/gen.txt", reported, *f.journal).empty());
}

BOOST_AUTO_TEST_CASE(a_watch_starts_from_the_agreements_beneath_its_root_only) {
    const AgreedDigests agreements{{"/app", "00000000000000aa"},
                                   {"/app/a.txt", "00000000000000ff"},
                                   {"/app/gen/b.txt", "0123456789abcdef"},
                                   {"/app/odd.txt", "not a digest"},
                                   {"/apple/c.txt", "0000000000000001"}};
    using sync_back::AgreedFile;
    const std::vector<AgreedFile> app = sync_back::agreed_beneath(agreements, "/app");
    BOOST_TEST((app == std::vector<AgreedFile>{{"a.txt", 0xff}, {"gen/b.txt", 0x0123456789abcdefULL}}));
    BOOST_TEST((sync_back::agreed_beneath(agreements, "/app/") == app));
    const std::vector<AgreedFile> root = sync_back::agreed_beneath(agreements, "/");
    BOOST_TEST(root.size() == 4u);
    BOOST_TEST(root.front().path == "app");
    BOOST_TEST(sync_back::agreed_beneath(agreements, "/srv").empty());
}

BOOST_AUTO_TEST_CASE(files_no_pattern_asks_for_stay_in_the_container) {
    Folders f;
    auto back = f.sync_back();
    write(f.app / "node_modules" / "x.js", "dep");
    BOOST_TEST((back.on_container_change("/app/node_modules/x.js", 0).kind == Kind::ignored));
    BOOST_TEST(!fs::exists(f.local / "node_modules"));
}

BOOST_AUTO_TEST_CASE(both_sides_changed_is_a_conflict_that_clears_once_they_agree) {
    Folders f;
    auto back = f.sync_back();
    write(f.app / "package-lock.json", "v1");
    BOOST_TEST((back.on_container_change("/app/package-lock.json", 0).kind == Kind::written));
    write(f.local / "package-lock.json", "local edit");
    write(f.app / "package-lock.json", "container edit");
    const auto e = back.on_container_change("/app/package-lock.json", 0);
    BOOST_TEST((e.kind == Kind::conflict));
    BOOST_TEST((e.conflict == sb::ConflictKind::both_modified));
    BOOST_TEST(e.message.find("/app/package-lock.json") != std::string::npos, e.message);
    BOOST_TEST(text_of(f.local / "package-lock.json") == "local edit");
    BOOST_TEST(text_of(f.app / "package-lock.json") == "container edit");
    BOOST_TEST(back.conflicts().count("/app/package-lock.json") == 1u);
    // The developer takes the container's version: both agree, the conflict clears.
    write(f.local / "package-lock.json", "container edit");
    BOOST_TEST((back.on_container_change("/app/package-lock.json", 0).kind == Kind::agreed));
    BOOST_TEST(back.conflicts().empty());
}

BOOST_AUTO_TEST_CASE(a_delete_against_a_local_edit_is_a_conflict) {
    Folders f;
    auto back = f.sync_back();
    write(f.app / "package-lock.json", "v1");
    back.on_container_change("/app/package-lock.json", 0);
    write(f.local / "package-lock.json", "local edit");
    fs::remove(f.app / "package-lock.json");
    const auto e = back.on_container_change("/app/package-lock.json", 0);
    BOOST_TEST((e.conflict == sb::ConflictKind::local_modified_container_deleted));
    BOOST_TEST(text_of(f.local / "package-lock.json") == "local edit");
}

BOOST_AUTO_TEST_CASE(a_container_delete_of_an_agreed_file_deletes_it_locally_but_never_en_masse) {
    Folders f;
    auto back = f.sync_back();
    write(f.app / "db" / "a.py", "a");
    write(f.app / "db" / "b.py", "b");
    back.on_container_change("/app/db/a.py", 0);
    back.on_container_change("/app/db/b.py", 0);
    fs::remove(f.app / "db" / "a.py");
    BOOST_TEST((back.on_container_change("/app/db/a.py", 0).kind == Kind::deleted));
    BOOST_TEST(!fs::exists(f.local / "db" / "a.py"));
    // The container restarted from its image: its /app is gone, then empty.
    fs::remove_all(f.app);
    BOOST_TEST((back.on_container_change("/app/db/b.py", 0).kind == Kind::held));
    fs::create_directories(f.app);
    BOOST_TEST((back.on_container_change("/app/db/b.py", 0).kind == Kind::held));
    BOOST_TEST(text_of(f.local / "db" / "b.py") == "b");
}

BOOST_AUTO_TEST_CASE(hostile_names_are_refused) {
    Folders f;
    auto back = f.sync_back();
    write(f.app / "package-lock.json", "x");
    for (const char *name : {"/app/db/../package-lock.json", "/app/./package-lock.json", "/app//package-lock.json"}) {
        const auto e = back.on_container_change(name, 0);
        BOOST_TEST((e.kind == Kind::refused), name);
    }
    // ".." that leaves containerPath is no file of the rule's at all.
    BOOST_TEST((back.on_container_change("/app/../etc/package-lock.json", 0).kind == Kind::ignored));
    BOOST_TEST(!fs::exists(f.local / "package-lock.json"));
}

// containerPath "/": the name starts right after the root's own "/", so a
// one-character first segment is a name like any other.
BOOST_AUTO_TEST_CASE(a_container_path_of_the_root_keeps_the_whole_name) {
    Folders f;
    auto back = sync_back::LocalSyncBack(sb::SyncBackMapping(f.local.string(), "/", {"a", "b"}), f.container.string(),
                                         f.journal, sb::Limits{});
    write(f.container / "a" / "x.py", "x");
    write(f.container / "b", "b");
    for (const char *name : {"/a/x.py", "/b"}) {
        const auto e = back.on_container_change(name, 0);
        BOOST_TEST((e.kind == Kind::written), name << ": " << e.message);
    }
    BOOST_TEST(text_of(f.local / "a" / "x.py") == "x");
    BOOST_TEST(text_of(f.local / "b") == "b");
    BOOST_TEST((back.on_container_change("/a/../a/x.py", 0).kind == Kind::refused));
}

BOOST_AUTO_TEST_CASE(container_symlinks_and_fifos_never_come_back_nor_are_followed) {
    Folders f;
    auto back = f.sync_back();
    write(f.outside / "secret", "secret");
    fs::create_symlink(f.outside / "secret", f.app / "package-lock.json");  // to a file outside
    fs::create_directory_symlink(f.outside, f.app / "db");                  // a folder on the way, outside
    fs::create_directories(f.app / "gen");
    BOOST_TEST_REQUIRE(::mkfifo((f.app / "gen" / "pipe.go").c_str(), 0644) == 0);
    for (const char *name : {"/app/package-lock.json", "/app/db/secret", "/app/gen/pipe.go"}) {
        const auto e = back.on_container_change(name, 0);
        BOOST_TEST((e.kind == Kind::conflict), name << ": " << e.message);
        BOOST_TEST((e.conflict == sb::ConflictKind::not_a_regular_file), name);
    }
    BOOST_TEST(!fs::exists(f.local / "package-lock.json"));
    BOOST_TEST(!fs::exists(f.local / "db"));
    BOOST_TEST(!fs::exists(f.local / "gen"));
}

BOOST_AUTO_TEST_CASE(a_local_symlink_on_the_way_is_never_written_through) {
    Folders f;
    auto back = f.sync_back();
    fs::create_directory_symlink(f.outside, f.local / "db");
    write(f.app / "db" / "m.py", "m");
    const auto e = back.on_container_change("/app/db/m.py", 0);
    BOOST_TEST((e.kind == Kind::conflict), e.message);
    BOOST_TEST(f.outside_empty());
    // Nor is a local symlink at the file itself replaced.
    fs::create_symlink(f.outside / "target", f.local / "package-lock.json");
    write(f.app / "package-lock.json", "lock");
    BOOST_TEST((back.on_container_change("/app/package-lock.json", 0).kind == Kind::conflict));
    BOOST_TEST(fs::is_symlink(f.local / "package-lock.json"));
    BOOST_TEST(f.outside_empty());
}

BOOST_AUTO_TEST_CASE(a_file_over_the_size_limit_is_refused_and_bursts_are_deferred) {
    Folders f;
    sb::Limits limits;
    limits.max_file_bytes = 10;
    limits.max_files_per_second = 2;
    limits.max_burst_files = 2;
    auto back = f.sync_back(limits);
    write(f.app / "gen" / "big.go", std::string(11, 'x'));
    const auto big = back.on_container_change("/app/gen/big.go", 0);
    BOOST_TEST((big.kind == Kind::refused));
    BOOST_TEST(big.message.find("a file of 11 bytes (at most 10)") != std::string::npos, big.message);
    BOOST_TEST(!fs::exists(f.local / "gen" / "big.go"));
    write(f.app / "gen" / "a.go", "a");
    write(f.app / "gen" / "b.go", "b");
    BOOST_TEST((back.on_container_change("/app/gen/a.go", 10).kind == Kind::written));
    BOOST_TEST((back.on_container_change("/app/gen/b.go", 20).kind == Kind::deferred));
    BOOST_TEST((back.on_container_change("/app/gen/b.go", 1000).kind == Kind::written));
}

BOOST_AUTO_TEST_CASE(a_write_whose_source_changed_meanwhile_leaves_no_half_file) {
    Folders f;
    write(f.app / "package-lock.json", "whole");
    const auto source = sync_back::open_beneath(f.app.string(), "package-lock.json", UINT64_MAX);
    const std::string error =
        sync_back::write_beneath(f.local.string(), "package-lock.json", source.fd.get(), 0644, "0000000000000000", {})
            .error;
    BOOST_TEST(error.find("changed while it was copied") != std::string::npos, error);
    BOOST_TEST(!fs::exists(f.local / "package-lock.json"));
    BOOST_TEST(no_temporary_left(f.local));
}

// What lu-agent sent is written from memory, through the same temporary,
// mode and digest check as a file's bytes: a claim that does not hold for
// the bytes (cut short on the way) lands nothing.
BOOST_AUTO_TEST_CASE(bytes_in_memory_are_written_only_when_they_have_the_claimed_digest) {
    Folders f;
    const std::string whole = "module.exports = 1;\n";
    const std::string error = sync_back::write_beneath(f.local.string(), "gen/d0/f0.js", std::string_view(whole), 0750,
                                                       digest_text_of(whole), {})
                                  .error;
    BOOST_TEST(error.empty(), error);
    std::ifstream in(f.local / "gen" / "d0" / "f0.js");
    BOOST_TEST(std::string(std::istreambuf_iterator<char>(in), {}) == whole);
    BOOST_TEST(static_cast<int>(fs::status(f.local / "gen" / "d0" / "f0.js").permissions() & fs::perms::all) == 0750);
    const std::string cut = sync_back::write_beneath(f.local.string(), "gen/d0/f1.js", std::string_view(whole), 0644,
                                                     digest_text_of(whole + "more"), {})
                                .error;
    BOOST_TEST(cut.find("changed while it was copied") != std::string::npos, cut);
    BOOST_TEST(!fs::exists(f.local / "gen" / "d0" / "f1.js"));
    BOOST_TEST(no_temporary_left(f.local / "gen" / "d0"));
}

// The local file a change was judged against is the only one a write may
// replace: a developer's save, a new file or a symlink that came while the
// container's bytes were copied is kept, and no temporary file is left.
BOOST_AUTO_TEST_CASE(a_write_never_replaces_a_local_file_that_came_or_changed_while_it_copied) {
    // The way to the name looked up again by the write, or the folder the look that judged it opened.
    for (const bool through_look : {false, true}) {
        BOOST_TEST_CONTEXT("through the look's folder: " << through_look) {
            Folders f;
            write(f.app / "package-lock.json", "container");
            const auto source = sync_back::open_beneath(f.app.string(), "package-lock.json", UINT64_MAX);
            const auto look = [&](const std::string &name) {
                return sync_back::open_beneath(f.local.string(), name, UINT64_MAX);
            };
            const auto write_judged = [&](const std::string &name, const sync_back::BeneathFile &judged) {
                return sync_back::write_beneath(f.local.string(), name, source.fd.get(), 0644, source.state.digest,
                                                judged.stamp, nullptr, through_look ? judged.parent.get() : -1);
            };
            // Judged absent; the developer's new file came meanwhile.
            auto judged = look("new.json");
            write(f.local / "new.json", "developer");
            auto result = write_judged("new.json", judged);
            BOOST_TEST(result.local_changed, result.error);
            BOOST_TEST(text_of(f.local / "new.json") == "developer");
            // Judged absent; a symlink came meanwhile.
            judged = look("link.json");
            fs::create_symlink(f.outside / "target", f.local / "link.json");
            BOOST_TEST(!write_judged("link.json", judged).error.empty());
            BOOST_TEST(fs::is_symlink(f.local / "link.json"));
            BOOST_TEST(!fs::exists(f.outside / "target"));
            // Judged as one file; saved in place with the same length meanwhile.
            write(f.local / "saved.json", "before");
            judged = look("saved.json");
            BOOST_TEST_REQUIRE(judged.stamp.present);
            std::this_thread::sleep_for(std::chrono::milliseconds(5));  // a later ctime on any clock granularity
            write(f.local / "saved.json", "after!");
            BOOST_TEST(write_judged("saved.json", judged).local_changed);
            BOOST_TEST(text_of(f.local / "saved.json") == "after!");
            // Judged as one file, deleted meanwhile: not brought back in its place either.
            judged = look("saved.json");
            fs::remove(f.local / "saved.json");
            BOOST_TEST(write_judged("saved.json", judged).local_changed);
            BOOST_TEST(!fs::exists(f.local / "saved.json"));
            BOOST_TEST(no_temporary_left(f.local));
            // Unchanged since judged: replaced.
            write(f.local / "kept.json", "old");
            result = write_judged("kept.json", look("kept.json"));
            BOOST_TEST(result.error.empty(), result.error);
            BOOST_TEST(text_of(f.local / "kept.json") == "container");
        }
    }
}

// A developer's save that lands while a large container file is copied
// beside it: judged again, a conflict; the developer's bytes stay.
BOOST_AUTO_TEST_CASE(a_local_save_during_a_write_is_judged_again_and_kept) {
    Folders f;
    auto back = f.sync_back();
    {
        std::ofstream big(f.app / "package-lock.json", std::ios::binary);
        const std::string mib(1 << 20, 'c');
        for (int i = 0; i < 48; ++i) big << mib;
    }
    // The developer saves as soon as sync back made its temporary file.
    const int inotify = ::inotify_init1(IN_CLOEXEC);
    BOOST_TEST_REQUIRE(inotify >= 0);
    BOOST_TEST_REQUIRE(::inotify_add_watch(inotify, f.local.c_str(), IN_CREATE) >= 0);
    std::thread developer([&] {
        alignas(inotify_event) char buffer[4096];
        for (bool seen = false; !seen;) {
            const ssize_t n = ::read(inotify, buffer, sizeof buffer);
            if (n <= 0) return;
            for (ssize_t at = 0; at < n;) {
                const auto *event = reinterpret_cast<const inotify_event *>(buffer + at);
                if (event->len > 0 && std::string(event->name).starts_with(".lu-sync-back-")) seen = true;
                at += static_cast<ssize_t>(sizeof(inotify_event) + event->len);
            }
        }
        write(f.local / "package-lock.json", "developer");
    });
    const auto e = back.on_container_change("/app/package-lock.json", 0);
    developer.join();
    ::close(inotify);
    BOOST_TEST(text_of(f.local / "package-lock.json") == "developer", e.message);
    // Unless the save came only after the rename (then it simply replaced the file that came back).
    if (e.kind != Kind::written) {
        BOOST_TEST((e.kind == Kind::conflict), e.message);
        BOOST_TEST((e.conflict == sb::ConflictKind::both_modified));
    }
    BOOST_TEST_MESSAGE("the save came " << (e.kind == Kind::written ? "after" : "during") << " the write");
    BOOST_TEST(no_temporary_left(f.local));
}

// A full local disk: nothing half written, said once, then offered again
// quietly (deferred) until there is room. localPath is a small tmpfs (root
// only: skipped otherwise).
BOOST_AUTO_TEST_CASE(a_full_local_disk_is_said_once_and_tried_again_until_there_is_room) {
    Folders f;
    if (::mount("tmpfs", f.local.c_str(), "tmpfs", 0, "size=256k") != 0) {
        BOOST_TEST_MESSAGE("skipped: cannot mount a tmpfs: " << std::strerror(errno));
        return;
    }
    struct Unmount {
        fs::path at;
        ~Unmount() { ::umount2(at.c_str(), MNT_DETACH); }
    } unmount{f.local};
    auto back = f.sync_back();
    {
        std::ofstream filler(f.local / "filler", std::ios::binary);
        const std::string kib(1024, 'f');
        for (int i = 0; i < 512 && filler; ++i) filler << kib;
    }
    write(f.app / "gen" / "big.bin", std::string(std::size_t{64} * 1024, 'c'));
    auto e = back.on_container_change("/app/gen/big.bin", 0);
    BOOST_TEST((e.kind == Kind::refused), e.message);
    BOOST_TEST(e.again);
    BOOST_TEST(e.message.find("tried again until there is room") != std::string::npos, e.message);
    BOOST_TEST(!fs::exists(f.local / "gen" / "big.bin"));
    BOOST_TEST(no_temporary_left(f.local));
    e = back.on_container_change("/app/gen/big.bin", 0);
    BOOST_TEST((e.kind == Kind::deferred), e.message);  // not said again
    // Only at --log-level debug, and not taken for the rate limit.
    const sync_back::ReportLine waits = sync_back::report_line(sync_back::SyncBackTarget{}, e);
    BOOST_TEST((waits.level == liveupdate::common::LogLevel::debug));
    BOOST_TEST(waits.text.ends_with("waits: the local disk is full"), waits.text);
    fs::remove(f.local / "filler");
    e = back.on_container_change("/app/gen/big.bin", 0);
    BOOST_TEST((e.kind == Kind::written), e.message);
    BOOST_TEST(text_of(f.local / "gen" / "big.bin") == std::string(std::size_t{64} * 1024, 'c'));
}

BOOST_AUTO_TEST_CASE(folders_are_not_files_to_bring_back) {
    Folders f;
    auto back = f.sync_back();
    fs::create_directories(f.app / "db" / "migrations");
    BOOST_TEST((back.on_container_change("/app/db/migrations", 0).kind == Kind::nothing));
    BOOST_TEST(back.conflicts().empty());
}

// End to end on a local container's folder: written in the container, equal
// locally, no temporary file left, and the event reported.
BOOST_AUTO_TEST_CASE(the_watch_brings_back_what_the_container_writes) {
    Folders f;
    std::mutex mutex;
    std::vector<sync_back::SyncBackEvent> events;
    sync_back::LocalSyncBackWatch watch(std::make_unique<sync_back::LocalSyncBack>(f.sync_back()), f.container.string(),
                                        [&](const sync_back::SyncBackEvent &e) {
                                            const std::lock_guard lock(mutex);
                                            events.push_back(e);
                                        });
    write(f.app / "db" / "migrations" / "0002.py", "alter table");
    write(f.app / "src.js", "not wanted");
    const fs::path landed = f.local / "db" / "migrations" / "0002.py";
    // The event is reported after the file lands: wait for both.
    const auto reported = [&] {
        const std::lock_guard lock(mutex);
        return !events.empty();
    };
    for (int i = 0; i < 300 && (text_of(landed) != "alter table" || !reported()); ++i)
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    BOOST_TEST(text_of(landed) == "alter table");
    BOOST_TEST(!fs::exists(f.local / "src.js"));
    BOOST_TEST(no_temporary_left(f.local));
    {
        const std::lock_guard lock(mutex);
        BOOST_TEST_REQUIRE(!events.empty());
        BOOST_TEST(events.back().container_path == "/app/db/migrations/0002.py");
    }
    // A conflict is kept for get/describe until a side agrees again.
    write(f.local / "db" / "migrations" / "0002.py", "local");
    write(f.app / "db" / "migrations" / "0002.py", "container");
    for (int i = 0; i < 300 && watch.conflicts().empty(); ++i)
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    BOOST_TEST(watch.conflicts().count("/app/db/migrations/0002.py") == 1u);
    BOOST_TEST(text_of(landed) == "local");
}

// A burst past the rate limit all comes back, though the container is
// quiet after it: the deferred files do not wait for a next change.
BOOST_AUTO_TEST_CASE(a_burst_past_the_rate_limit_all_comes_back_once_the_container_is_quiet) {
    Folders f;
    sb::Limits limits;
    limits.max_files_per_second = 5;
    limits.max_burst_files = 5;
    sync_back::LocalSyncBackWatch watch(std::make_unique<sync_back::LocalSyncBack>(f.sync_back(limits)),
                                        f.container.string(), [](const sync_back::SyncBackEvent &) {});
    for (int i = 0; i < 20; ++i) write(f.app / "db" / ("m" + std::to_string(i) + ".py"), std::to_string(i));
    const auto all_back = [&] {
        for (int i = 0; i < 20; ++i)
            if (text_of(f.local / "db" / ("m" + std::to_string(i) + ".py")) != std::to_string(i)) return false;
        return true;
    };
    for (int i = 0; i < 1000 && !all_back(); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(10));
    BOOST_TEST(all_back());
}

BOOST_AUTO_TEST_SUITE_END()
