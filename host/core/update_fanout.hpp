// Runs the updates of one "updates" step (stepVersion 2): every container's
// update of one change, at most a bounded number at once (as Compose bounds
// its fan-out at 16). Each update's log lines are kept apart, for the driver
// to print them in container order, never interleaved mid-update.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include <boost/json.hpp>

#include "common/log_level.hpp"
#include "host/core/executor.hpp"

namespace liveupdate::host {

struct LogLine {
    common::LogLevel level;
    std::string text;
};

// What running one update gave: its outcome and the lines it wrote.
struct FannedOutUpdate {
    UpdateOutcome outcome;
    std::vector<LogLine> log;
};

inline constexpr std::size_t kDefaultParallelUpdates = 16;

// updates: the step's update objects, in order. parallel 1 runs them one after
// another and stops after the first infrastructure failure, as a host of
// stepVersion 1 would (the plugin folds no outcome after it): fewer results
// than updates then. Otherwise every update runs and has its result.
std::vector<FannedOutUpdate> run_updates(const Executor &executor,
                                         const std::vector<const boost::json::object *> &updates, std::size_t parallel);

}  // namespace liveupdate::host
