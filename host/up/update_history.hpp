// How long a LiveUpdate's recent updates took and how many files each
// carried: the last 50, oldest first, as the status page charts them (as Tilt
// shows build durations). A value type; its owner (Activity) locks it.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <optional>
#include <string>
#include <vector>

#include <boost/json.hpp>

#include "common/micro_time.hpp"

namespace liveupdate::host::up {

struct UpdateSample {
    std::string at;           // when it ended
    double milliseconds = 0;  // its reconcile, start to end, to a tenth
    std::size_t files = 0;    // the files it changed
    bool failed = false;
};

class UpdateHistory {
public:
    static constexpr std::size_t kKept = 50;

    void add(UpdateSample sample);
    const std::deque<UpdateSample> &samples() const { return samples_; }
    // [{"at", "ms", "files", "failed"}], oldest first.
    boost::json::array to_json() const;

private:
    std::deque<UpdateSample> samples_;
};

// The update a reconcile made, from its events ("started" with filesChanged,
// "completed" with error); nullopt when it started none.
std::optional<UpdateSample> update_sample(const std::vector<boost::json::object> &events, common::MicroTime at,
                                          std::chrono::microseconds took);

}  // namespace liveupdate::host::up
