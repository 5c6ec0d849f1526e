#include "host/core/kept_threads.hpp"

#include <chrono>
#include <cstddef>
#include <optional>
#include <thread>
#include <utility>
#include <vector>

namespace liveupdate::host {

void mark_done(KeptTask &task) {
    {
        const common::MutexLock lock(task.mutex_);
        task.done_ = true;
    }
    task.finished_.notify_all();
}

void KeptTask::wait() {
    common::MutexLock lock(mutex_);
    lock.wait(finished_, [&]() LU_REQUIRES(mutex_) { return done_; });
}

namespace {

constexpr auto kIdleEnd = std::chrono::seconds(30);

struct Queued {
    std::function<void()> work;
    std::shared_ptr<KeptTask> task;
};

// A kept thread waiting for its next task.
struct Idle {
    std::condition_variable handed;
    std::optional<Queued> next;
};

// The idle threads, the last one to finish on top: the next task goes to
// the thread that ran the previous one (its stack and arena warm), and the
// others, left idle, end.
struct Pool {
    common::Mutex mutex;
    std::vector<Idle *> idle;
};

// Never destroyed: kept threads may still wait on it while the process exits.
Pool &pool() {
    static Pool *const kept = new Pool;
    return *kept;
}

void serve(Pool &p, Queued first) {
    Idle self;
    self.next = std::move(first);
    common::MutexLock lock(p.mutex);
    for (;;) {
        Queued next = std::move(*self.next);
        self.next.reset();
        lock.unlock();
        next.work();
        next.work = nullptr;  // what the task holds goes before its starter hears it ended
        lock.lock();
        // Idle again before the starter hears of it: its next task finds this thread, not a new one.
        p.idle.push_back(&self);
        mark_done(*next.task);
        if (!lock.wait_for(self.handed, kIdleEnd, [&] { return self.next.has_value(); })) {
            std::erase(p.idle, &self);
            return;
        }
    }
}

}  // namespace

std::shared_ptr<KeptTask> run_on_kept_thread(std::function<void()> work) {
    Pool &p = pool();
    auto task = std::make_shared<KeptTask>();
    Queued queued{std::move(work), task};
    const common::MutexLock lock(p.mutex);
    if (p.idle.empty()) {
        std::thread([&p, first = std::move(queued)]() mutable { serve(p, std::move(first)); }).detach();
        return task;
    }
    Idle *const thread = p.idle.back();
    p.idle.pop_back();
    thread->next = std::move(queued);
    thread->handed.notify_one();
    return task;
}

}  // namespace liveupdate::host
