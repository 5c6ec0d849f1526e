#include "host/core/update_fanout.hpp"

#include <algorithm>
#include <atomic>
#include <mutex>
#include <thread>

namespace liveupdate::host {

namespace {

// One update's lines; the updater and the archive writer thread log into it.
class LineBuffer {
public:
    LogSinkFn sink() {
        return [this](common::LogLevel level, std::string_view text) {
            const std::lock_guard lock(mutex_);
            lines_.push_back(LogLine{level, std::string(text)});
        };
    }
    std::vector<LogLine> take() {
        const std::lock_guard lock(mutex_);
        return std::move(lines_);
    }

private:
    std::mutex mutex_;
    std::vector<LogLine> lines_;
};

FannedOutUpdate run_one(const Executor &executor, const boost::json::object &update) {
    LineBuffer buffer;
    UpdateOutcome outcome = executor.execute(update, buffer.sink());
    return FannedOutUpdate{std::move(outcome), buffer.take()};
}

}  // namespace

std::vector<FannedOutUpdate> run_updates(const Executor &executor,
                                         const std::vector<const boost::json::object *> &updates,
                                         std::size_t parallel) {
    std::vector<FannedOutUpdate> results;
    if (parallel <= 1) {
        for (const boost::json::object *update : updates) {
            results.push_back(run_one(executor, *update));
            if (results.back().outcome.kind == UpdateOutcome::Kind::infra_failure) break;
        }
        return results;
    }
    results.resize(updates.size());
    std::atomic<std::size_t> next{0};
    const auto work = [&] {
        for (std::size_t i = next++; i < updates.size(); i = next++) results[i] = run_one(executor, *updates[i]);
    };
    std::vector<std::jthread> workers;
    const std::size_t helpers = std::min(parallel, updates.size()) - 1;
    for (std::size_t i = 0; i < helpers; ++i) workers.emplace_back(work);
    work();  // this thread takes its share too
    workers.clear();
    return results;
}

}  // namespace liveupdate::host
