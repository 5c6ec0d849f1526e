// The local container's side of sync back, running: its folder's sync root
// (root + containerPath) watched with inotify (host/up's TreeWatcher), each
// changed path handed to LocalSyncBack, whatever it did reported. One per
// LiveUpdate, container and sync rule that has syncBack.
#pragma once

#include <chrono>
#include <condition_variable>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "common/mutex.hpp"
#include "host/core/synced_journal.hpp"
#include "host/sync_back/container_sync_back.hpp"
#include "host/sync_back/held_reports.hpp"
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

    // Judges what the folder holds now against agreements (container path
    // → digest): each wanted file beneath the sync root and each agreed one,
    // so that what the app changed while no watch ran comes back, or is a
    // conflict. Called once, after the watch began.
    void catch_up(const AgreedDigests &agreements);

private:
    // A report of the folder needs no content of its own: the folder is read again when it is judged.
    struct FolderLook {};

    void on_batch(const std::vector<std::string> &local_paths);
    // Offers container paths to sync back; what it did goes to events.
    void offer(const std::set<std::string> &paths, std::vector<SyncBackEvent> &events) LU_REQUIRES(mutex_);
    // The paths held while a forward update carried them, judged once it ended.
    void on_forward_ended(const std::vector<HeldReports<FolderLook>::Held> &held);
    // Offers the deferred paths again while the container is quiet: a burst
    // past the rate limit must not wait for a change that may never come.
    void retry_deferred();

    std::string container_root_;
    ReportFn report_;
    mutable common::Mutex mutex_;
    std::unique_ptr<LocalSyncBack> sync_back_ LU_GUARDED_BY(mutex_);
    // A delete waits while the container's changes keep coming (see
    // kDeleteQuiet): an app emptying the sync root in several batches must
    // be judged by the empty root it ends in, not delete here step by step.
    bool hold_delete(const std::string &container_file, std::chrono::steady_clock::time_point now) LU_REQUIRES(mutex_);
    static constexpr std::chrono::milliseconds kDeleteQuiet{150};
    static constexpr std::chrono::milliseconds kDeleteHold{2000};

    std::set<std::string> deferred_ LU_GUARDED_BY(mutex_);  // over the rate limit, or a held delete: offered again
    std::chrono::steady_clock::time_point last_batch_at_ LU_GUARDED_BY(mutex_);
    std::optional<std::chrono::steady_clock::time_point> deletes_held_since_ LU_GUARDED_BY(mutex_);
    std::condition_variable deferred_changed_;
    bool stopping_ LU_GUARDED_BY(mutex_) = false;
    std::thread retrier_;
    std::unique_ptr<HeldReports<FolderLook>> held_;  // stopped after the watcher, before the rest
    std::unique_ptr<up::TreeWatcher> watcher_;       // last: stopped first
};

// The local container's sync back for target (its root folder watched), the
// agreements in the container's synced journal, its local writes told to
// came_back. Throws std::runtime_error,
// HostError or std::invalid_argument naming what stands in the way.
std::unique_ptr<ContainerSyncBack> start_local_sync_back(const SyncBackTarget &target, SyncedJournals &journals,
                                                         std::shared_ptr<CameBack> came_back, SyncBackReportFn report);

}  // namespace liveupdate::host::sync_back
