// The daemon's sync backs (host/sync_back/sync_back_watches.*): one whose
// changes stopped coming, or that could not start, is started again on its
// own timer (and at a reconcile), the wait doubling up to its most and back
// to the first once it ran long enough, said once per break and not per
// try; one stopped while down is tried no more. While one is down, the
// conflicts its last watch held still show, and the watch started again
// does not say nor count them again as new.
#define BOOST_TEST_MODULE sync_back_watches
#include <sys/wait.h>
#include <unistd.h>

#include <boost/test/unit_test.hpp>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "host/sync_back/sync_back_report.hpp"
#include "host/sync_back/sync_back_watches.hpp"
#include "tests/support/temp_dir.hpp"

using namespace liveupdate::host::sync_back;
using liveupdate::common::LogLevel;
using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

namespace {

// A sync back whose source of changes ends when told, as an agent's does.
class EndingSyncBack final : public ContainerSyncBack {
public:
    EndingSyncBack(SyncBackReportFn report, std::map<std::string, SyncBackEvent> conflicts)
        : report_(std::move(report)), conflicts_(std::move(conflicts)) {}
    std::map<std::string, SyncBackEvent> conflicts() const override { return conflicts_; }
    bool ended() const override { return ended_; }
    // A change judged, as its watch's thread reports one.
    void judged(const SyncBackEvent &event) { report_(event); }
    // Once it says it ended, the watches may let go of this object, and of
    // report_ with it, at any moment: the report is made through a copy.
    void end() {
        const SyncBackReportFn report = report_;
        SyncBackEvent event;
        event.kind = SyncBackEvent::Kind::refused;
        event.ended = true;
        event.message = "the container's changes stopped coming: killed";
        ended_ = true;
        report(event);
    }

private:
    SyncBackReportFn report_;
    const std::map<std::string, SyncBackEvent> conflicts_;
    std::atomic<bool> ended_{false};
};

using liveupdate::sync_back::ConflictKind;

// A conflict of path as a sync back judges it, opening it when opens.
SyncBackEvent conflict(const std::string &path, ConflictKind kind, bool opens = false) {
    SyncBackEvent event;
    event.kind = SyncBackEvent::Kind::conflict;
    event.container_path = path;
    event.conflict = kind;
    event.opens_conflict = opens;
    return event;
}

struct Note {
    LogLevel level;
    std::string text;
};

// The watches with a start that fails while `failing`, and what they said.
class Fixture {
public:
    explicit Fixture(RestartTimes times)
        : watches_(
              [this](const SyncBackTarget &, SyncBackReportFn report) -> std::unique_ptr<ContainerSyncBack> {
                  std::lock_guard lock(mutex_);
                  tries_.push_back(Clock::now());
                  if (failing_) throw std::runtime_error("the container is not running");
                  auto sync_back = std::make_unique<EndingSyncBack>(std::move(report), conflicts_);
                  last_ = sync_back.get();
                  return sync_back;
              },
              [this](const SyncBackTarget &, const SyncBackEvent &event) {
                  std::lock_guard lock(mutex_);
                  reported_.push_back(event);
              },
              [this](const SyncBackTarget &, LogLevel level, const std::string &text) {
                  std::lock_guard lock(mutex_);
                  notes_.push_back({level, text});
              },
              times) {
        target_.live_update = "lu";
        target_.via = "docker";
        target_.container.id = "c1";
        target_.display = "c1";
        target_.local_path = "/src";
        target_.container_path = "/app";
        target_.patterns = {"gen"};
    }

    void set() { watches_.set("lu", {target_}); }
    void set_local_path(const std::string &path) { target_.local_path = path; }
    void stop() { watches_.set("lu", {}); }
    void fail(bool failing) {
        std::lock_guard lock(mutex_);
        failing_ = failing;
    }
    // Ends the sync back started last.
    void end_last() {
        EndingSyncBack *last = nullptr;
        {
            std::lock_guard lock(mutex_);
            last = last_;
        }
        BOOST_TEST_REQUIRE(last != nullptr);
        last->end();
    }
    // The conflicts the sync backs started from now on hold: both sides modified.
    void hold_conflicts(const std::vector<std::string> &paths) {
        std::lock_guard lock(mutex_);
        conflicts_.clear();
        for (const std::string &path : paths) conflicts_[path] = conflict(path, ConflictKind::both_modified);
    }
    // The sync back started last judged event.
    void judged(const SyncBackEvent &event) {
        EndingSyncBack *last = nullptr;
        {
            std::lock_guard lock(mutex_);
            last = last_;
        }
        BOOST_TEST_REQUIRE(last != nullptr);
        last->judged(event);
    }
    // The events the watches reported, and forgets them.
    std::vector<SyncBackEvent> reported() {
        std::lock_guard lock(mutex_);
        return std::exchange(reported_, {});
    }
    // The container paths of the conflicts the watches show.
    std::vector<std::string> conflicts() const {
        std::vector<std::string> out;
        for (const OpenConflict &c : watches_.conflicts("lu")) out.push_back(c.event.container_path);
        return out;
    }
    std::vector<Clock::time_point> tries() {
        std::lock_guard lock(mutex_);
        return tries_;
    }
    // Notes at level or above that hold text.
    std::vector<std::string> said(LogLevel level, const std::string &text) {
        std::lock_guard lock(mutex_);
        std::vector<std::string> out;
        for (const Note &n : notes_)
            if (n.level >= level && n.text.find(text) != std::string::npos) out.push_back(n.text);
        return out;
    }
    bool wait_for(const std::function<bool()> &done) {
        for (const auto until = Clock::now() + 20s; Clock::now() < until; std::this_thread::sleep_for(2ms))
            if (done()) return true;
        return false;
    }

private:
    std::mutex mutex_;
    bool failing_ = false;
    std::map<std::string, SyncBackEvent> conflicts_;
    EndingSyncBack *last_ = nullptr;
    std::vector<Clock::time_point> tries_;
    std::vector<Note> notes_;
    std::vector<SyncBackEvent> reported_;
    SyncBackTarget target_;
    SyncBackWatches watches_;  // last: stopped before the rest goes
};

}  // namespace

// A crash between a write and its rename left a temporary file in the
// developer's folder: the sync back started next removes it, and says so.
BOOST_AUTO_TEST_CASE(a_sync_back_starting_removes_a_temporary_a_crash_left) {
    const liveupdate::test::TempDir dir{"lu-sync-back-watches"};
    const pid_t dead = ::fork();
    if (dead == 0) ::_exit(0);
    int status = 0;
    ::waitpid(dead, &status, 0);
    const std::filesystem::path left = dir.path() / "gen" / (".lu-sync-back-" + std::to_string(dead) + "-0.tmp");
    std::filesystem::create_directories(left.parent_path());
    std::ofstream(left) << "half a file";
    Fixture f(RestartTimes{.first = 20ms, .most = 80ms, .healthy = 10s});
    f.set_local_path(dir.path().string());
    f.set();
    BOOST_TEST(!std::filesystem::exists(left));
    BOOST_TEST(f.said(LogLevel::info, "removed " + left.string()).size() == 1u);

    // Once a folder: a watch started again does not walk the tree again.
    const std::filesystem::path later = dir.path() / (".lu-sync-back-" + std::to_string(dead) + "-1.tmp");
    std::ofstream(later) << "half a file";
    const std::size_t tries = f.tries().size();
    f.end_last();
    BOOST_TEST_REQUIRE(f.wait_for([&] { return f.tries().size() > tries; }));
    BOOST_TEST(std::filesystem::exists(later));
}

BOOST_AUTO_TEST_CASE(a_broken_sync_back_is_tried_again_the_wait_doubling_and_said_once) {
    Fixture f(RestartTimes{.first = 20ms, .most = 80ms, .healthy = 10s});
    f.set();
    BOOST_TEST_REQUIRE(f.said(LogLevel::info, ": started").size() == 1u);
    f.fail(true);
    f.end_last();
    BOOST_TEST_REQUIRE(f.wait_for([&] { return f.tries().size() >= 6u; }));
    const std::vector<Clock::time_point> tries = f.tries();
    // No reconcile asked for any of them. The first try came 20 ms after the
    // break; each failed try waits twice the last wait, up to 80 ms.
    const std::vector<std::chrono::milliseconds> waits{40ms, 80ms, 80ms, 80ms};
    for (std::size_t i = 0; i < waits.size(); ++i)
        BOOST_TEST((tries[i + 2] - tries[i + 1] >= waits[i]), "the wait before try " << i + 2);
    BOOST_TEST(f.said(LogLevel::warn, "stopped coming").size() == 1u);
    BOOST_TEST(f.said(LogLevel::warn, "tried again in 20 ms").size() == 1u);
    BOOST_TEST(f.said(LogLevel::info, "cannot start").empty());  // the tries: debug only
    BOOST_TEST(f.said(LogLevel::debug, "cannot start yet").size() >= 4u);
    f.fail(false);
    BOOST_TEST(f.wait_for([&] { return f.said(LogLevel::info, ": started").size() == 2u; }));
    const std::size_t after = f.tries().size();
    std::this_thread::sleep_for(200ms);
    BOOST_TEST(f.tries().size() == after);  // running again: no more tries
}

BOOST_AUTO_TEST_CASE(a_sync_back_that_ran_long_enough_waits_the_first_wait_again) {
    Fixture f(RestartTimes{.first = 20ms, .most = 1s, .healthy = 1s});
    f.set();
    f.end_last();  // at once: waits 20 ms
    BOOST_TEST_REQUIRE(f.wait_for([&] { return f.said(LogLevel::info, ": started").size() == 2u; }));
    f.end_last();  // at once again: the same break goes on, 40 ms
    BOOST_TEST_REQUIRE(f.wait_for([&] { return f.said(LogLevel::info, ": started").size() == 3u; }));
    std::this_thread::sleep_for(1100ms);
    f.end_last();  // after running a while: a new break, 20 ms
    BOOST_TEST_REQUIRE(f.wait_for([&] { return f.said(LogLevel::info, ": started").size() == 4u; }));
    const std::vector<std::string> breaks = f.said(LogLevel::warn, "stopped coming");
    BOOST_TEST_REQUIRE(breaks.size() == 3u);
    BOOST_TEST(breaks[0].ends_with("tried again in 20 ms"), breaks[0]);
    BOOST_TEST(breaks[1].ends_with("tried again in 40 ms"), breaks[1]);
    BOOST_TEST(breaks[2].ends_with("tried again in 20 ms"), breaks[2]);
}

BOOST_AUTO_TEST_CASE(one_that_cannot_start_is_said_once_tried_on_the_timer_and_not_after_it_stopped) {
    Fixture f(RestartTimes{.first = 20ms, .most = 300ms, .healthy = 10s});
    f.fail(true);
    f.set();
    BOOST_TEST(f.said(LogLevel::warn, "cannot start: the container is not running; tried again in 20 ms").size() == 1u);
    BOOST_TEST_REQUIRE(f.wait_for([&] { return f.tries().size() >= 3u; }));
    const std::size_t before = f.tries().size();
    f.set();  // a reconcile meanwhile: tried at once (its container may be back), not said again
    BOOST_TEST(f.tries().size() >= before + 1);
    BOOST_TEST(f.said(LogLevel::warn, "cannot start").size() == 1u);
    f.stop();
    const std::size_t stopped_at = f.tries().size();
    std::this_thread::sleep_for(200ms);
    BOOST_TEST(f.tries().size() <= stopped_at + 1);  // one already under way may finish
    f.fail(false);
    f.set();
    BOOST_TEST(f.said(LogLevel::info, ": started").size() == 1u);
}

// Its agent killed, a watch's conflicts would vanish until the next one
// reported the files again: they show while it is down, through failed
// tries, and the watch that then runs has its own (it judged them again).
BOOST_AUTO_TEST_CASE(a_down_sync_back_still_shows_its_last_conflicts_until_one_runs_again) {
    Fixture f(RestartTimes{.first = 20ms, .most = 40ms, .healthy = 10s});
    f.hold_conflicts({"/app/gen/a", "/app/gen/b"});
    f.set();
    const std::vector<std::string> both{"/app/gen/a", "/app/gen/b"};
    BOOST_TEST(f.conflicts() == both, boost::test_tools::per_element());
    f.fail(true);
    f.end_last();
    BOOST_TEST_REQUIRE(f.wait_for([&] { return f.tries().size() >= 4u; }));  // down, and tried in vain
    BOOST_TEST(f.conflicts() == both, boost::test_tools::per_element());
    f.hold_conflicts({"/app/gen/b"});
    f.fail(false);
    BOOST_TEST_REQUIRE(f.wait_for([&] { return f.said(LogLevel::info, ": started").size() == 2u; }));
    BOOST_TEST(f.conflicts() == std::vector<std::string>{"/app/gen/b"}, boost::test_tools::per_element());
    f.stop();
    BOOST_TEST(f.conflicts().empty());
}

// A watch started in place of a broken one judges its files from the
// agreements, so it finds the conflicts still open again: said and counted
// when they opened, they are not new (known, not opening one). Another kind
// of conflict at such a path, one at a new path, and one that cleared and
// opened again are.
BOOST_AUTO_TEST_CASE(conflicts_a_watch_started_again_finds_again_are_not_new) {
    Fixture f(RestartTimes{.first = 20ms, .most = 40ms, .healthy = 10s});
    f.hold_conflicts({"/app/gen/a", "/app/gen/b", "/app/gen/c"});
    f.set();
    f.end_last();
    BOOST_TEST_REQUIRE(f.wait_for([&] { return f.said(LogLevel::info, ": started").size() == 2u; }));
    f.judged(conflict("/app/gen/a", ConflictKind::both_modified, true));
    f.judged(conflict("/app/gen/b", ConflictKind::local_modified_container_deleted, true));
    f.judged(conflict("/app/gen/new", ConflictKind::both_modified, true));
    SyncBackEvent agreed;
    agreed.kind = SyncBackEvent::Kind::agreed;
    agreed.container_path = "/app/gen/c";
    f.judged(agreed);
    f.judged(conflict("/app/gen/c", ConflictKind::both_modified, true));
    const std::vector<SyncBackEvent> reported = f.reported();
    BOOST_TEST_REQUIRE(reported.size() == 5u);
    BOOST_TEST(reported[0].known);
    BOOST_TEST(!reported[0].opens_conflict);
    for (const std::size_t i : {1u, 2u, 4u}) {
        BOOST_TEST_CONTEXT("event " << i << ": " << reported[i].container_path) {
            BOOST_TEST(!reported[i].known);
            BOOST_TEST(reported[i].opens_conflict);
        }
    }
    // Said at debug level only, not as a conflict again.
    BOOST_TEST((report_line(SyncBackTarget{}, reported[0]).level == LogLevel::debug));
    BOOST_TEST((report_line(SyncBackTarget{}, reported[1]).level == LogLevel::warn));
}
