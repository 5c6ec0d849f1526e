// The FileEvents of one FileWatch ({time, seenFiles} per batch of changes),
// kept as Tilt keeps them: the newest few. Unlike Tilt, an event is never
// dropped before every LiveUpdate it concerns has seen it; until then the list
// grows. It stays a run of consecutive batches, so a LiveUpdate finds the last
// event it saw and takes exactly the newer ones. Only past a hard cap (a
// LiveUpdate that never keeps up) is the oldest folded into the next: nothing
// is lost, but its files then carry the newer time and may sync once more.
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <string>
#include <vector>

#include <boost/json.hpp>

#include "common/micro_time.hpp"

namespace liveupdate::host::up {

inline constexpr std::size_t kMaxFileEvents = 20;
inline constexpr std::size_t kMaxUnconsumedFileEvents = 1000;

class FileEventLog {
public:
    struct Event {
        common::MicroTime time;
        std::vector<std::string> paths;   // sorted, unique
        std::vector<std::uint64_t> seqs;  // its batch, and those folded into it
    };

    using ConsumedFn = std::function<bool(std::uint64_t seq)>;

    // seq: increasing number of the batch; consumed: whether the batch of a
    // seq has been seen by every LiveUpdate it concerns.
    void append(common::MicroTime time, std::vector<std::string> paths, std::uint64_t seq, const ConsumedFn &consumed,
                std::size_t keep = kMaxFileEvents, std::size_t cap = kMaxUnconsumedFileEvents);
    const std::deque<Event> &events() const { return events_; }
    boost::json::array to_json() const;

private:
    std::deque<Event> events_;
};

}  // namespace liveupdate::host::up
