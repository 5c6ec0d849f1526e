#include "host/up/child_spawner.hpp"
#include "common/mutex.hpp"

#include <future>

namespace liveupdate::host::up {

ChildSpawner::ChildSpawner() : thread_([this] { run(); }) {}

ChildSpawner::~ChildSpawner() {
    {
        common::MutexLock lock(mutex_);
        stopping_ = true;
    }
    wake_.notify_all();
    thread_.join();
}

subprocess::StartedChild ChildSpawner::spawn(subprocess::ChildOptions options) {
    options.die_with_parent = true;
    std::packaged_task<subprocess::StartedChild()> task([&options] { return subprocess::start_child(options); });
    std::future<subprocess::StartedChild> result = task.get_future();
    {
        common::MutexLock lock(mutex_);
        jobs_.emplace_back([&task] { task(); });
    }
    wake_.notify_all();
    return result.get();
}

void ChildSpawner::run() {
    for (;;) {
        std::function<void()> job;
        {
            common::MutexLock lock(mutex_);
            lock.wait(wake_, [this]() LU_REQUIRES(mutex_) { return stopping_ || !jobs_.empty(); });
            if (jobs_.empty()) return;
            job = std::move(jobs_.front());
            jobs_.pop_front();
        }
        job();
    }
}

}  // namespace liveupdate::host::up
