// Batches file changes: a batch is ready once no change came for `quiet`,
// or once `max_wait` passed since its first change while changes keep coming.
// A save should not wait for a timer: when the tree was quiet (no change for
// `quiet`) before a batch began, the batch is ready as soon as a file in it
// is complete (closed after writing, or renamed into place); what follows is
// batched as above.
#pragma once

#include <chrono>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace liveupdate::host::up {

class Debouncer {
public:
    using Clock = std::chrono::steady_clock;

    Debouncer(std::chrono::milliseconds quiet, std::chrono::milliseconds max_wait)
        : quiet_(quiet), max_wait_(max_wait) {}

    enum class Change { other, completed_write };

    void add(std::string path, Clock::time_point now, Change change = Change::other);
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
    bool seen_any_ = false;
    bool began_quiet_ = false;  // the pending batch began after a quiet spell
    bool due_now_ = false;      // ...and a file in it is complete
};

}  // namespace liveupdate::host::up
