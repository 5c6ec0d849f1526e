// Runs the updates of one "updates" step (stepVersion 2): every container's
// update of one change, at most a bounded number at once (as Compose bounds
// its fan-out at 16). Each update's log lines are kept apart, for the driver
// to print them in container order, never interleaved mid-update.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include <boost/json.hpp>

#include "common/log_level.hpp"
#include "common/mutex.hpp"
#include "common/update_step/step_envelope.hpp"
#include "host/core/executor.hpp"

namespace liveupdate::host {

using StepLogLine = update_step::LogLine;

// What running one update gave: its outcome and the lines it wrote.
struct FannedOutUpdate {
    updater::Outcome outcome;
    std::vector<StepLogLine> log;
};

inline constexpr std::size_t kDefaultParallelUpdates = 16;

// Runs the steps' updates on the calling thread and on helper threads kept
// from one step to the next: a thread started per update cost more than a
// small update itself (a new stack and a cold malloc arena each time). The
// updates of a step that copy the same paths read one archive, built once
// (Executor::shared_archive).
// Thread-safe: steps of different LiveUpdates share the helpers, each caller
// working on its own step too, so a step never waits for another's.
class UpdateFanout {
public:
    // parallel: at most that many updates of one step at once (helpers are
    // started as steps need them, parallel - 1 at most).
    explicit UpdateFanout(std::size_t parallel);
    UpdateFanout(const UpdateFanout &) = delete;
    UpdateFanout &operator=(const UpdateFanout &) = delete;
    ~UpdateFanout();

    // updates: the step's updates, in order. parallel 1 runs them one
    // after another and, when stops_at_infra_failure (the step's
    // "stopsAtInfraFailure": the plugin folds no outcome after it, C07),
    // stops after the first infrastructure failure, as a host of stepVersion
    // 1 would: fewer results than updates then. Otherwise every update runs
    // and has its result.
    std::vector<FannedOutUpdate> run(const Executor &executor,
                                     const std::vector<const update_step::ContainerUpdate *> &updates,
                                     bool stops_at_infra_failure = true);

    std::size_t parallel() const { return parallel_; }

private:
    // A helper's share of a step; it calls its argument once it will take no more of the step's updates.
    using Task = std::function<void(const std::function<void()> &)>;
    void post(Task task);
    void serve();

    std::size_t parallel_;
    common::Mutex mutex_;
    std::condition_variable posted_;
    std::deque<Task> tasks_ LU_GUARDED_BY(mutex_);
    std::size_t idle_ LU_GUARDED_BY(mutex_) = 0;
    bool stopping_ LU_GUARDED_BY(mutex_) = false;
    std::vector<std::thread> helpers_ LU_GUARDED_BY(mutex_);
};

}  // namespace liveupdate::host
