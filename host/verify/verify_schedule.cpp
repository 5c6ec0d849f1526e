#include "host/verify/verify_schedule.hpp"

#include <algorithm>
#include <cctype>

namespace liveupdate::host::verify {

using Clock = std::chrono::steady_clock;

std::optional<std::chrono::milliseconds> parse_interval(std::string_view text) {
    if (text == "off") return std::chrono::milliseconds(0);
    std::size_t digits = 0;
    while (digits < text.size() && std::isdigit(static_cast<unsigned char>(text[digits])) != 0) ++digits;
    if (digits == 0 || digits > 9) return std::nullopt;
    const long long value = std::stoll(std::string(text.substr(0, digits)));
    const std::string_view unit = text.substr(digits);
    if (unit == "ms") return std::chrono::milliseconds(value);
    if (unit.empty() || unit == "s") return std::chrono::seconds(value);
    if (unit == "m") return std::chrono::minutes(value);
    if (unit == "h") return std::chrono::hours(value);
    return std::nullopt;
}

VerifySchedule::VerifySchedule(Timing timing, RunFn run, ProbeFn probe, LastChangeFn last_change)
    : timing_(timing),
      run_(std::move(run)),
      probe_(std::move(probe)),
      last_change_(std::move(last_change)),
      thread_([this] { loop(); }) {}

VerifySchedule::~VerifySchedule() {
    {
        common::MutexLock lock(mutex_);
        stopping_ = true;
    }
    wake_.notify_all();
    thread_.join();
}

void VerifySchedule::request(std::string reason) {
    {
        common::MutexLock lock(mutex_);
        reasons_.insert(std::move(reason));
        if (!requested_at_) requested_at_ = Clock::now();
    }
    wake_.notify_all();
}

std::optional<Clock::time_point> VerifySchedule::quiet_from() const {
    if (!last_change_) return std::nullopt;
    const auto changed = last_change_();
    if (!changed) return std::nullopt;
    return *changed + timing_.settle;
}

void VerifySchedule::loop() {
    const bool periodic = timing_.every.count() > 0;
    auto next_periodic = Clock::now() + timing_.every;
    auto next_probe = Clock::now() + timing_.probe_every;
    bool held = false;  // a due check waits for the files to be quiet, until held_until
    Clock::time_point held_until{};
    common::MutexLock lock(mutex_);
    while (!stopping_) {
        auto until = next_probe;
        if (held) {
            until = std::min(until, held_until);
        } else {
            if (periodic && next_periodic < until) until = next_periodic;
            if (requested_at_ && *requested_at_ + timing_.settle < until) until = *requested_at_ + timing_.settle;
        }
        lock.wait_until(wake_, until, [&]() LU_REQUIRES(mutex_) { return stopping_; });
        if (stopping_) break;
        const auto now = Clock::now();
        if (now >= next_probe && probe_) {
            next_probe = now + timing_.probe_every;
            lock.unlock();
            std::optional<std::string> reason = probe_();
            lock.lock();
            if (reason) {
                reasons_.insert(std::move(*reason));
                if (!requested_at_) requested_at_ = now;
            }
        }
        const bool requested = requested_at_ && now >= *requested_at_ + timing_.settle;
        if (!requested && !(periodic && now >= next_periodic)) continue;
        const auto due_at = requested ? *requested_at_ + timing_.settle : next_periodic;
        lock.unlock();
        const auto quiet_at = quiet_from();
        lock.lock();
        if (quiet_at && now < *quiet_at && now < due_at + timing_.longest_wait) {  // V05: waits for quiet
            held = true;
            held_until = std::min(*quiet_at, due_at + timing_.longest_wait);
            continue;
        }
        held = false;
        std::string reason;
        if (requested) {
            for (const auto &r : reasons_) reason += (reason.empty() ? "" : "; ") + r;
            reasons_.clear();
            requested_at_.reset();
        } else {
            reason = "periodic check";
        }
        // A run counts as the periodic one too: the timer starts again after it.
        next_periodic = Clock::now() + timing_.every;
        lock.unlock();
        run_(reason);
        lock.lock();
        next_periodic = Clock::now() + timing_.every;
    }
}

}  // namespace liveupdate::host::verify
