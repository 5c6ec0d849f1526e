#include "host/core/update_fanout.hpp"

#include <algorithm>
#include <atomic>
#include <exception>
#include <memory>
#include <system_error>

#include "common/mutex.hpp"
#include "host/core/log.hpp"

namespace liveupdate::host {

namespace {

// One update's lines; the updater and the archive writer thread log into it.
class LineBuffer {
public:
    LogSinkFn sink() {
        return [this](common::LogLevel level, std::string_view text) {
            const common::MutexLock lock(mutex_);
            lines_.push_back(StepLogLine{level, std::string(text)});
        };
    }
    std::vector<StepLogLine> take() {
        const common::MutexLock lock(mutex_);
        return std::move(lines_);
    }

private:
    common::Mutex mutex_;
    std::vector<StepLogLine> lines_;
};

FannedOutUpdate run_one(const Executor &executor, const update_step::ContainerUpdate &update,
                        const std::shared_ptr<const PrebuiltArchive> &shared = nullptr) {
    LineBuffer buffer;
    updater::Outcome outcome = executor.execute(update, buffer.sink(), shared);
    return FannedOutUpdate{std::move(outcome), buffer.take()};
}

// One step's updates, a queue taken one at a time by whichever thread comes. A
// helper that comes after the last one was taken touches nothing but this.
struct SharedUpdateQueue {
    const Executor &executor;
    const std::vector<const update_step::ContainerUpdate *> &updates;
    const std::size_t count;
    const std::shared_ptr<const PrebuiltArchive> shared;  // the archive every update copies, when it is one
    std::atomic<std::size_t> next{0};
    std::vector<FannedOutUpdate> results;
    common::Mutex mutex;
    std::condition_variable finished_all;
    std::size_t finished = 0;
    std::exception_ptr failure;

    SharedUpdateQueue(const Executor &e, const std::vector<const update_step::ContainerUpdate *> &u)
        : executor(e), updates(u), count(u.size()), shared(e.shared_archive(u)), results(u.size()) {}

    // idle_early: called by a helper once it has taken its last update, before
    // the step can be seen finished, so the next step finds it idle.
    void work(const std::function<void()> &idle_early = {}) {
        for (std::size_t i = next++; i < count;) {
            std::exception_ptr thrown;
            try {
                results[i] = run_one(executor, *updates[i], shared);
            } catch (...) {
                thrown = std::current_exception();  // rethrown on the step's own thread
            }
            i = next++;
            if (i >= count && idle_early) idle_early();
            const common::MutexLock lock(mutex);
            if (thrown && !failure) failure = thrown;
            if (++finished == count) finished_all.notify_all();
        }
    }

    void wait() {
        common::MutexLock lock(mutex);
        lock.wait(finished_all, [&] { return finished == count; });
        if (failure) std::rethrow_exception(failure);
    }
};

}  // namespace

UpdateFanout::UpdateFanout(std::size_t parallel) : parallel_(std::max<std::size_t>(parallel, 1)) {
    helpers_.reserve(parallel_ - 1);  // post() then only fails to start a thread, which the caller survives
}

UpdateFanout::~UpdateFanout() {
    {
        const common::MutexLock lock(mutex_);
        stopping_ = true;
    }
    posted_.notify_all();
    for (std::thread &helper : helpers_) helper.join();
}

std::vector<FannedOutUpdate> UpdateFanout::run(const Executor &executor,
                                               const std::vector<const update_step::ContainerUpdate *> &updates,
                                               bool stops_at_infra_failure) {
    if (parallel_ == 1 || updates.size() <= 1) {
        std::vector<FannedOutUpdate> results;
        for (const update_step::ContainerUpdate *update : updates) {
            results.push_back(run_one(executor, *update));
            // X08: one by one, ended by an infrastructure failure that holds every container.
            if (stops_at_infra_failure && results.back().outcome.kind == updater::Outcome::Kind::infra_failure) break;
        }
        return results;
    }
    const auto step = std::make_shared<SharedUpdateQueue>(executor, updates);
    const std::size_t helpers = std::min(parallel_, updates.size()) - 1;
    for (std::size_t i = 0; i < helpers; ++i)
        post([step](const std::function<void()> &idle_early) { step->work(idle_early); });
    step->work();  // this thread takes its share too, and needs no helper to finish
    step->wait();
    return std::move(step->results);  // X08: in the updates' (container) order, whoever ran them
}

void UpdateFanout::post(Task task) {
    const common::MutexLock lock(mutex_);
    tasks_.push_back(std::move(task));
    if (tasks_.size() > idle_ && helpers_.size() + 1 < parallel_) {
        try {
            helpers_.emplace_back([this] { serve(); });
        } catch (const std::system_error &e) {
            log::warn(std::string("cannot start an update thread (the updates run on fewer threads): ") + e.what());
        }
    }
    posted_.notify_one();
}

void UpdateFanout::serve() {
    common::MutexLock lock(mutex_);
    ++idle_;
    for (;;) {
        lock.wait(posted_, [&]() LU_REQUIRES(mutex_) { return stopping_ || !tasks_.empty(); });
        --idle_;
        if (stopping_) return;  // what is queued then belongs to steps their callers finished
        Task task = std::move(tasks_.front());
        tasks_.pop_front();
        lock.unlock();
        bool counted = false;
        task([&] {
            const common::MutexLock idle(mutex_);
            ++idle_;
            counted = true;
        });
        task = nullptr;  // the step it served may go now, outside the lock
        lock.lock();
        if (!counted) ++idle_;
    }
}

}  // namespace liveupdate::host
