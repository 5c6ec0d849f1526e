// The local container's side of sync back, running: its folder's sync root
// (root + containerPath) watched with inotify (host/up's TreeWatcher), each
// changed path handed to LocalSyncBack, whatever it did reported. One per
// LiveUpdate, container and sync rule that has syncBack.
#pragma once

#include <condition_variable>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "common/mutex.hpp"
#include "host/core/synced_journal.hpp"
#include "host/sync_back/container_sync_back.hpp"
#include "host/sync_back/local_sync_back.hpp"
#include "host/up/tree_watcher.hpp"

namespace liveupdate::host::sync_back {

class LocalSyncBackWatch : public ContainerSyncBack {
public:
    // Called on the watcher's thread for every event but ignored and nothing.
    using ReportFn = std::function<void(const SyncBackEvent &event)>;

    // Watches from when it returns; throws std::runtime_error when inotify
    // is unavailable.
    LocalSyncBackWatch(std::unique_ptr<LocalSyncBack> sync_back, const std::string &container_root, ReportFn report,
                       up::WatchTiming timing = {.debounce = std::chrono::milliseconds(20)});
    LocalSyncBackWatch(const LocalSyncBackWatch &) = delete;
    LocalSyncBackWatch &operator=(const LocalSyncBackWatch &) = delete;
    ~LocalSyncBackWatch() override;

    // The conflicts open now, by container path. Thread-safe.
    std::map<std::string, SyncBackEvent> conflicts() const override;

private:
    void on_batch(const std::vector<std::string> &local_paths);
    // Offers the deferred paths again while the container is quiet: a burst
    // past the rate limit must not wait for a change that may never come.
    void retry_deferred();

    std::string container_root_;
    ReportFn report_;
    mutable common::Mutex mutex_;
    std::unique_ptr<LocalSyncBack> sync_back_ LU_GUARDED_BY(mutex_);
    std::set<std::string> deferred_ LU_GUARDED_BY(mutex_);  // over the rate limit: offered again
    std::condition_variable deferred_changed_;
    bool stopping_ LU_GUARDED_BY(mutex_) = false;
    std::thread retrier_;
    std::unique_ptr<up::TreeWatcher> watcher_;  // last: stopped first
};

// The local container's sync back for target (its root folder watched), the
// agreements in the container's synced journal, its local writes told to
// came_back. Throws std::runtime_error,
// HostError or std::invalid_argument naming what stands in the way.
std::unique_ptr<ContainerSyncBack> start_local_sync_back(const SyncBackTarget &target, SyncedJournals &journals,
                                                         std::shared_ptr<CameBack> came_back, SyncBackReportFn report);

}  // namespace liveupdate::host::sync_back
