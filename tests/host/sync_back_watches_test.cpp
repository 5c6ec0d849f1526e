// The daemon's sync backs (host/sync_back/sync_back_watches.*): one whose
// changes stopped coming, or that could not start, is started again on its
// own timer (and at a reconcile), the wait doubling up to its most and back
// to the first once it ran long enough, said once per break and not per
// try; one stopped while down is tried no more.
#define BOOST_TEST_MODULE sync_back_watches
#include <boost/test/unit_test.hpp>

#include <atomic>
#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "host/sync_back/sync_back_watches.hpp"

using namespace liveupdate::host::sync_back;
using liveupdate::common::LogLevel;
using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

namespace {

// A sync back whose source of changes ends when told, as an agent's does.
class EndingSyncBack final : public ContainerSyncBack {
public:
    explicit EndingSyncBack(SyncBackReportFn report) : report_(std::move(report)) {}
    std::map<std::string, SyncBackEvent> conflicts() const override { return {}; }
    bool ended() const override { return ended_; }
    void end() {
        ended_ = true;
        SyncBackEvent event;
        event.kind = SyncBackEvent::Kind::refused;
        event.ended = true;
        event.message = "the container's changes stopped coming: killed";
        report_(event);
    }

private:
    SyncBackReportFn report_;
    std::atomic<bool> ended_{false};
};

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
                  auto sync_back = std::make_unique<EndingSyncBack>(std::move(report));
                  last_ = sync_back.get();
                  return sync_back;
              },
              [](const SyncBackTarget &, const SyncBackEvent &) {},
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
    EndingSyncBack *last_ = nullptr;
    std::vector<Clock::time_point> tries_;
    std::vector<Note> notes_;
    SyncBackTarget target_;
    SyncBackWatches watches_;  // last: stopped before the rest goes
};

}  // namespace

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
