// Tasks run on threads kept from one task to the next (each update's archive
// writer): a thread started per task costs a new stack, a cold malloc arena
// and their teardown each time, more than a small update's archive itself.
// A thread idle for a while ends, so a burst leaves none behind for long;
// the next task goes to the thread that finished last.
#pragma once

#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>

#include "common/mutex.hpp"

namespace liveupdate::host {

// One task's end, for its starter to wait on.
class KeptTask {
public:
    // Returns once the task has returned.
    void wait();

private:
    friend void mark_done(KeptTask &task);
    common::Mutex mutex_;
    std::condition_variable finished_;
    bool done_ LU_GUARDED_BY(mutex_) = false;
};

// Runs task on an idle kept thread, or on a new one. Throws
// std::system_error when no thread was idle and none could start.
std::shared_ptr<KeptTask> run_on_kept_thread(std::function<void()> task);

}  // namespace liveupdate::host
