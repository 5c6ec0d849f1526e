// Reports of container changes to a path a forward update carries now
// (docs/sync-back.md, "No echo"): not judged then, and not dropped either
// (the agent reports a change once): the latest report of each path is held,
// with the agreement the path's forwarding began from, and handed back once
// that forwarding ended. The synced journal tells the end on the update's
// thread; this class only notes it there and judges on a thread of its own,
// so that an update never waits on sync back's local writes.
#pragma once

#include <condition_variable>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "common/mutex.hpp"
#include "host/core/synced_journal.hpp"

namespace liveupdate::host::sync_back {

template <typename Report>
class HeldReports {
public:
    struct Held {
        std::string path;                          // the container path
        Report report;                             // the latest one
        std::optional<std::string> agreed_before;  // the agreement the first forwarding it met began from
    };
    // Called on this class's thread with the held reports of paths whose forwarding ended.
    using JudgeFn = std::function<void(std::vector<Held> held)>;

    HeldReports(std::shared_ptr<SyncedJournal> journal, JudgeFn judge)
        : journal_(std::move(journal)), judge_(std::move(judge)), state_(std::make_shared<State>()) {
        listener_ = journal_->listen_forward_ends([state = state_](const std::string &path) { state->note_end(path); });
        thread_ = std::thread([this] { run(); });
    }
    HeldReports(const HeldReports &) = delete;
    HeldReports &operator=(const HeldReports &) = delete;
    ~HeldReports() {
        journal_->unlisten_forward_ends(listener_);
        {
            const common::MutexLock lock(state_->mutex);
            state_->stopping = true;
        }
        state_->changed.notify_all();
        thread_.join();
    }

    // Holds report of path, forwarding now from agreed_before. A later
    // report of the path replaces it; the earliest agreement stays (a look
    // holding it was taken before the first forward write).
    void hold(const std::string &path, Report report, std::optional<std::string> agreed_before) {
        {
            const common::MutexLock lock(state_->mutex);
            if (const auto it = held_.find(path); it != held_.end())
                it->second.report = std::move(report);
            else
                held_.emplace(path, Held{path, std::move(report), std::move(agreed_before)});
        }
        // Its forwarding may have ended before it was held: judged now then.
        if (!journal_->is_forwarding(path)) state_->note_end(path);
    }

    std::size_t size() const {
        const common::MutexLock lock(state_->mutex);
        return held_.size();
    }

private:
    // What the journal's listener reaches: it may outlive this class by one call.
    struct State {
        common::Mutex mutex;
        std::condition_variable changed;
        std::set<std::string> ended LU_GUARDED_BY(mutex);
        bool stopping LU_GUARDED_BY(mutex) = false;

        void note_end(const std::string &path) {
            {
                const common::MutexLock lock(mutex);
                ended.insert(path);
            }
            changed.notify_all();
        }
    };

    void run() {
        for (;;) {
            std::vector<Held> ready;
            {
                common::MutexLock lock(state_->mutex);
                lock.wait(state_->changed,
                          [this]() LU_REQUIRES(state_->mutex) { return state_->stopping || !state_->ended.empty(); });
                if (state_->stopping) return;
                for (const std::string &path : state_->ended)
                    if (auto it = held_.find(path); it != held_.end()) {
                        ready.push_back(std::move(it->second));
                        held_.erase(it);
                    }
                state_->ended.clear();
            }
            if (!ready.empty()) judge_(std::move(ready));
        }
    }

    std::shared_ptr<SyncedJournal> journal_;
    JudgeFn judge_;
    std::shared_ptr<State> state_;
    std::map<std::string, Held> held_ LU_GUARDED_BY(state_->mutex);
    int listener_ = 0;
    std::thread thread_;  // last: started once the rest is
};

}  // namespace liveupdate::host::sync_back
