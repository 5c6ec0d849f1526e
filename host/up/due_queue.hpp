// LiveUpdates due for reconcile, served by worker threads: one LiveUpdate is
// reconciled by one worker at a time; one marked due while it is being
// reconciled is reconciled again afterwards.
#pragma once

#include <algorithm>
#include <condition_variable>
#include <deque>
#include <functional>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "common/mutex.hpp"

namespace liveupdate::host::up {

class DueQueue {
public:
    using ReconcileFn = std::function<void(const std::string &live_update)>;

    DueQueue() = default;
    DueQueue(const DueQueue &) = delete;
    DueQueue &operator=(const DueQueue &) = delete;
    ~DueQueue();

    void start(unsigned workers, ReconcileFn reconcile);
    void mark_due(const std::vector<std::string> &names);
    // Drops what is pending, waits for reconciles in flight, joins the workers.
    void stop();
    // Waits until nothing is pending or in flight (tests and benchmarks).
    void wait_idle();

private:
    void work();

    ReconcileFn reconcile_;
    common::Mutex mutex_;
    std::condition_variable changed_;
    std::deque<std::string> pending_ LU_GUARDED_BY(mutex_);  // in order of marking, no duplicates
    std::set<std::string> queued_ LU_GUARDED_BY(mutex_);
    std::set<std::string> running_ LU_GUARDED_BY(mutex_);
    std::set<std::string> again_ LU_GUARDED_BY(mutex_);  // marked while running
    bool stopping_ LU_GUARDED_BY(mutex_) = false;
    std::vector<std::thread> workers_;
};

}  // namespace liveupdate::host::up
