#include "host/up/due_queue.hpp"
#include "common/mutex.hpp"

namespace liveupdate::host::up {

DueQueue::~DueQueue() { stop(); }

void DueQueue::start(unsigned workers, ReconcileFn reconcile) {
    reconcile_ = std::move(reconcile);
    for (unsigned i = 0; i < std::max(1u, workers); ++i) workers_.emplace_back([this] { work(); });
}

void DueQueue::mark_due(const std::vector<std::string> &names) {
    {
        common::MutexLock lock(mutex_);
        if (stopping_) return;
        for (const auto &name : names) {
            if (running_.count(name) != 0) {
                again_.insert(name);
            } else if (queued_.insert(name).second) {
                pending_.push_back(name);
            }
        }
    }
    changed_.notify_all();
}

void DueQueue::work() {
    common::MutexLock lock(mutex_);
    for (;;) {
        lock.wait(changed_, [&]() LU_REQUIRES(mutex_) { return stopping_ || !pending_.empty(); });
        if (stopping_) return;
        const std::string name = pending_.front();
        pending_.pop_front();
        queued_.erase(name);
        running_.insert(name);
        lock.unlock();
        reconcile_(name);
        lock.lock();
        running_.erase(name);
        if (again_.erase(name) != 0 && !stopping_ && queued_.insert(name).second) pending_.push_back(name);
        changed_.notify_all();
    }
}

void DueQueue::stop() {
    {
        common::MutexLock lock(mutex_);
        stopping_ = true;
        pending_.clear();
        queued_.clear();
    }
    changed_.notify_all();
    for (auto &w : workers_)
        if (w.joinable()) w.join();
    workers_.clear();
}

void DueQueue::wait_idle() {
    common::MutexLock lock(mutex_);
    lock.wait(changed_, [&]() LU_REQUIRES(mutex_) { return stopping_ || (pending_.empty() && running_.empty()); });
}

}  // namespace liveupdate::host::up
