// Batches file changes: a batch is ready once no change came for `quiet`,
// or once `max_wait` passed since its first change while changes keep coming.
#pragma once

#include <chrono>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace liveupdate::up {

class Debouncer {
public:
    using Clock = std::chrono::steady_clock;

    Debouncer(std::chrono::milliseconds quiet, std::chrono::milliseconds max_wait)
        : quiet_(quiet), max_wait_(max_wait) {}

    void add(std::string path, Clock::time_point now);
    bool empty() const { return pending_.empty(); }
    // When the pending batch becomes ready; nullopt when nothing is pending.
    std::optional<Clock::time_point> deadline() const;
    bool ready(Clock::time_point now) const;
    // The pending paths, sorted and unique; the debouncer is empty afterwards.
    std::vector<std::string> take();

private:
    std::chrono::milliseconds quiet_;
    std::chrono::milliseconds max_wait_;
    std::set<std::string> pending_;
    Clock::time_point first_{};
    Clock::time_point last_{};
};

}  // namespace liveupdate::up
