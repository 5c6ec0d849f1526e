// The FileEvents of one FileWatch ({time, seenFiles} per batch of changes),
// kept as Tilt keeps them: the newest few. Unlike Tilt, an event is never
// dropped before every LiveUpdate could see it: beyond the limit, events not
// yet consumed are folded into the next newer one (their paths then carry
// that newer time, which at worst syncs them once more).
#pragma once

#include <cstdint>
#include <deque>
#include <string>
#include <vector>

#include <boost/json.hpp>

#include "core/micro_time.hpp"

namespace liveupdate::up {

inline constexpr std::size_t kMaxFileEvents = 20;

class FileEventLog {
public:
    struct Event {
        MicroTime time;
        std::vector<std::string> paths;  // sorted, unique
        std::uint64_t seq = 0;
    };

    // seq: increasing number of the batch; consumed: every event with a seq up
    // to it has been seen by the LiveUpdates (0: none known).
    void append(MicroTime time, std::vector<std::string> paths, std::uint64_t seq, std::uint64_t consumed,
                std::size_t keep = kMaxFileEvents);
    const std::deque<Event> &events() const { return events_; }
    boost::json::array to_json() const;

private:
    std::deque<Event> events_;
};

}  // namespace liveupdate::up
