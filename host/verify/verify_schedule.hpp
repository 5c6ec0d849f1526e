// When the daemon verifies its containers on its own: every `every` (none
// when zero), and shortly after something that may have lost changes (an
// inotify queue overflow, an updater that reconnected), which request() or a
// probe (asked every second) reports. A check that is due waits while the
// watched files change: amid a burst it would race the burst's own update
// (and take its pending changes for ones the repair could not make), so it
// waits for `settle` without a change, though never longer than
// `longest_wait`. Runs on a thread of its own.
#pragma once

#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <thread>

#include "common/mutex.hpp"

namespace liveupdate::host::verify {

// "30s", "1500ms", "5m", "1h", a bare number of seconds; "0" and "off": none.
// nullopt when the text is none of those.
std::optional<std::chrono::milliseconds> parse_interval(std::string_view text);

class VerifySchedule {
public:
    using RunFn = std::function<void(const std::string &reason)>;
    // A reason to verify now, or nullopt.
    using ProbeFn = std::function<std::optional<std::string>()>;
    // When a watched file last changed; nullopt when none did.
    using LastChangeFn = std::function<std::optional<std::chrono::steady_clock::time_point>()>;

    struct Timing {
        std::chrono::milliseconds every{0};  // zero: not on a timer
        std::chrono::milliseconds settle{
            1000};  // after a request: lets the watcher's rescan and its update finish first
        std::chrono::milliseconds probe_every{1000};
        std::chrono::milliseconds longest_wait{10000};  // for the watched files to be quiet
    };

    VerifySchedule(Timing timing, RunFn run, ProbeFn probe, LastChangeFn last_change = {});
    VerifySchedule(const VerifySchedule &) = delete;
    VerifySchedule &operator=(const VerifySchedule &) = delete;
    ~VerifySchedule();  // waits for a run in progress

    // Thread-safe; requests while one is pending join it.
    void request(std::string reason);

private:
    void loop();
    // When the watched files will have been quiet for `settle`; nullopt: no change seen.
    std::optional<std::chrono::steady_clock::time_point> quiet_from() const;

    Timing timing_;
    RunFn run_;
    ProbeFn probe_;
    LastChangeFn last_change_;
    common::Mutex mutex_;
    std::condition_variable wake_;
    std::set<std::string> reasons_ LU_GUARDED_BY(mutex_);
    std::optional<std::chrono::steady_clock::time_point> requested_at_ LU_GUARDED_BY(mutex_);
    bool stopping_ LU_GUARDED_BY(mutex_) = false;
    std::thread thread_;
};

}  // namespace liveupdate::host::verify
