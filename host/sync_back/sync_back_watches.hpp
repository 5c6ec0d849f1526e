// The daemon's sync backs (docs/sync-back.md): one per LiveUpdate, container
// and sync rule with syncBack, started when the LiveUpdate selects the
// container, stopped when it no longer does, when the rule changes or the
// LiveUpdate is deleted. Held by the daemon, not by a plugin: they go on
// across a hot reload.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "common/log_level.hpp"
#include "common/mutex.hpp"
#include "host/sync_back/container_sync_back.hpp"

namespace liveupdate::host::sync_back {

// An open conflict, with the container it is in.
struct OpenConflict {
    std::string container;  // display name
    SyncBackEvent event;
};

class SyncBackWatches {
public:
    // report: each event of a target's sync back; note: a target's sync back
    // started, stopped, or could not start and why.
    using ReportFn = std::function<void(const SyncBackTarget &target, const SyncBackEvent &event)>;
    using NoteFn = std::function<void(const SyncBackTarget &target, common::LogLevel level, const std::string &text)>;

    SyncBackWatches(StartSyncBackFn start, ReportFn report, NoteFn note);
    SyncBackWatches(const SyncBackWatches &) = delete;
    SyncBackWatches &operator=(const SyncBackWatches &) = delete;
    ~SyncBackWatches();

    // live_update's targets now: those it no longer has stop, new ones start,
    // the others go on. A target that fails to start is tried again on the
    // next call, as is one whose changes stopped coming; one that cannot
    // (SyncBackUnsupported) is said once and left one-way. Empty: all of
    // the LiveUpdate's stop.
    void set(const std::string &live_update, const std::vector<SyncBackTarget> &targets);
    // Whether live_update has sync back running.
    bool running(const std::string &live_update) const;
    // live_update's open conflicts, by container path.
    std::vector<OpenConflict> conflicts(const std::string &live_update) const;
    // Why a forward delete into container_id by live_update is held, as its
    // running sync backs say (ContainerSyncBack::held_delete); "" to go ahead.
    std::string held_delete(const std::string &live_update, const std::string &container_id,
                            const std::string &delete_path, const SyncedJournal &journal) const;
    void stop_all();

private:
    struct Running {
        SyncBackTarget target;
        std::unique_ptr<ContainerSyncBack> sync_back;  // null: one-way
    };

    StartSyncBackFn start_;
    ReportFn report_;
    NoteFn note_;
    mutable common::Mutex mutex_;
    // LiveUpdate → target key → its sync back.
    std::map<std::string, std::map<std::string, std::shared_ptr<Running>>> running_ LU_GUARDED_BY(mutex_);
};

}  // namespace liveupdate::host::sync_back
