// Starts the LocalContainer processes so that they die with the daemon, even
// when it is killed with SIGKILL: each child asks the kernel for SIGKILL when
// its parent goes (PR_SET_PDEATHSIG). The kernel means the parent *thread*, so
// every child is forked by the one thread this object owns, which lives as
// long as the daemon's supervisor.
#pragma once

#include <condition_variable>
#include <deque>
#include <functional>
#include <thread>

#include "common/mutex.hpp"
#include "common/subprocess/child_start.hpp"

namespace liveupdate::host::up {

class ChildSpawner {
public:
    ChildSpawner();
    ChildSpawner(const ChildSpawner &) = delete;
    ChildSpawner &operator=(const ChildSpawner &) = delete;
    ~ChildSpawner();

    // Starts the child on the spawner's thread with die_with_parent set;
    // returns once it has exec'd (or failed to).
    subprocess::StartedChild spawn(subprocess::ChildOptions options);

private:
    void run();

    common::Mutex mutex_;
    std::condition_variable wake_;
    std::deque<std::function<void()>> jobs_ LU_GUARDED_BY(mutex_);
    bool stopping_ LU_GUARDED_BY(mutex_) = false;
    std::thread thread_;
};

}  // namespace liveupdate::host::up
