// When the daemon's own checks run (verify/verify_schedule.hpp): a check
// that is due waits while the watched files change, and never forever.
#include <atomic>
#include <boost/test/unit_test.hpp>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <thread>

#include "host/verify/verify_schedule.hpp"

using namespace liveupdate::host::verify;
using Clock = std::chrono::steady_clock;
using namespace std::chrono_literals;

namespace {

// The watched files as the schedule sees them: changed at a time the test sets.
class Changes {
public:
    void now() { last_.store(Clock::now().time_since_epoch().count()); }
    Clock::time_point last() const { return Clock::time_point(Clock::duration(last_.load())); }
    VerifySchedule::LastChangeFn fn() {
        return [this]() -> std::optional<Clock::time_point> { return last(); };
    }

private:
    std::atomic<Clock::rep> last_{0};
};

// The first run of a schedule: when it came, and how long the files had been quiet then.
class FirstRun {
public:
    VerifySchedule::RunFn fn(const Changes &changes) {
        return [this, &changes](const std::string &) {
            std::lock_guard lock(mutex_);
            if (ran_) return;
            ran_ = true;
            quiet_for_ = Clock::now() - changes.last();
            done_.notify_all();
        };
    }
    Clock::duration wait() {
        std::unique_lock lock(mutex_);
        done_.wait(lock, [&] { return ran_; });
        return quiet_for_;
    }
    bool ran() {
        std::lock_guard lock(mutex_);
        return ran_;
    }

private:
    std::mutex mutex_;
    std::condition_variable done_;
    bool ran_ = false;
    Clock::duration quiet_for_{};
};

}  // namespace

BOOST_AUTO_TEST_SUITE(verify_schedule)

BOOST_AUTO_TEST_CASE(a_requested_check_waits_until_the_files_are_quiet) {
    Changes changes;
    changes.now();
    FirstRun first;
    VerifySchedule schedule(VerifySchedule::Timing{0ms, 50ms, 10ms, 60s}, first.fn(changes), {}, changes.fn());
    schedule.request("inotify queue overflow");
    // A burst well past the settle time: a file every 5 ms, 60 times.
    for (int i = 0; i < 60 && !first.ran(); ++i) {
        changes.now();
        std::this_thread::sleep_for(5ms);
    }
    BOOST_TEST(std::chrono::duration_cast<std::chrono::milliseconds>(first.wait()).count() >= 50);
}

BOOST_AUTO_TEST_CASE(files_that_never_rest_delay_a_check_no_longer_than_the_longest_wait) {
    Changes changes;
    FirstRun first;
    std::atomic<bool> stop{false};
    std::thread busy([&] {
        while (!stop) {
            changes.now();
            std::this_thread::sleep_for(1ms);
        }
    });
    const auto requested = Clock::now();
    VerifySchedule schedule(VerifySchedule::Timing{0ms, 200ms, 10ms, 100ms}, first.fn(changes), {}, changes.fn());
    schedule.request("an updater reconnected");
    first.wait();
    const auto waited = Clock::now() - requested;
    stop = true;
    busy.join();
    // Due after the settle time, run at the end of the longest wait: the files never rested.
    BOOST_TEST(std::chrono::duration_cast<std::chrono::milliseconds>(waited).count() >= 300);
}

BOOST_AUTO_TEST_SUITE_END()
