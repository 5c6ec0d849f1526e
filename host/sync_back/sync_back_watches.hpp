// The daemon's sync backs (docs/sync-back.md): one per LiveUpdate, container
// and sync rule with syncBack, started when the LiveUpdate selects the
// container, stopped when it no longer does, when the rule changes or the
// LiveUpdate is deleted. Held by the daemon, not by a plugin: they go on
// across a hot reload. One whose changes stopped coming (its agent session
// broke), or that could not start, is started again on a timer of its own,
// so that it does not wait for a forward change to reconcile.
#pragma once

#include <chrono>
#include <condition_variable>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <thread>
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

// When a sync back that broke, or could not start, is tried again: after
// `first`, the wait doubling at each try up to `most`; one that then ran
// `healthy` long waits `first` again at its next break.
struct RestartTimes {
    std::chrono::milliseconds first{1000};
    std::chrono::milliseconds most{30000};
    std::chrono::milliseconds healthy{60000};
};

class SyncBackWatches {
public:
    // report: each event of a target's sync back; note: a target's sync back
    // started, stopped, broke, or could not start and why.
    using ReportFn = std::function<void(const SyncBackTarget &target, const SyncBackEvent &event)>;
    using NoteFn = std::function<void(const SyncBackTarget &target, common::LogLevel level, const std::string &text)>;

    SyncBackWatches(StartSyncBackFn start, ReportFn report, NoteFn note, RestartTimes times = {});
    SyncBackWatches(const SyncBackWatches &) = delete;
    SyncBackWatches &operator=(const SyncBackWatches &) = delete;
    ~SyncBackWatches();

    // live_update's targets now: those it no longer has stop, new ones start,
    // the others go on. A target that fails to start, or whose changes stop
    // coming, is tried again on the timer (RestartTimes) and at this call,
    // said once per break, not per try; one that cannot
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
    // Stops every sync back and the timer; set() does nothing after it.
    void stop_all();

private:
    using Clock = std::chrono::steady_clock;

    // A target's sync back. Its target and sync_back are set before it is
    // shared and never change: a restart makes a new one.
    struct Running {
        SyncBackTarget target;
        std::unique_ptr<ContainerSyncBack> sync_back;  // null: one-way, or down until retry_at
        bool one_way = false;
        // The restart schedule, under mutex_: when sync_back started, when a
        // down one is tried next, and the wait after that.
        Clock::time_point started;
        Clock::time_point retry_at;
        std::chrono::milliseconds wait{0};
        // A down one: the conflicts its last watch held, shown until one runs
        // again (it judges them again from the agreements). Under mutex_.
        std::map<std::string, SyncBackEvent> last_conflicts;
    };
    using Targets = std::map<std::string, std::shared_ptr<Running>>;  // by SyncBackTarget::key()

    // A started sync back's running state, or why it could not start.
    struct Started {
        std::unique_ptr<ContainerSyncBack> sync_back;
        bool one_way = false;
        std::string error;  // not started (and not one-way): why
    };
    // known: the conflicts open when the target's last watch broke, which
    // this one finds again (SyncBackEvent::known).
    Started start(const SyncBackTarget &target, const std::map<std::string, SyncBackEvent> &known = {});
    // The timer's thread: breaks noticed, due tries made.
    void restart_loop();
    // Starts down's target again in its place, unless it was stopped,
    // changed or started again meanwhile. Without the lock.
    void try_again(const std::string &live_update, const std::shared_ptr<Running> &down);
    // A sync back's source ended (on its watch's thread): the timer looks.
    void ended(const std::string &live_update, const std::string &key, const std::string &why);

    StartSyncBackFn start_;
    ReportFn report_;
    NoteFn note_;
    const RestartTimes times_;
    mutable common::Mutex mutex_;
    std::condition_variable woken_cv_;
    bool woken_ LU_GUARDED_BY(mutex_) = false;
    bool stopping_ LU_GUARDED_BY(mutex_) = false;
    // Why each broken sync back's changes stopped coming, by target key, until the timer says so.
    std::map<std::string, std::string> why_ended_ LU_GUARDED_BY(mutex_);
    // LiveUpdate → its targets' sync backs.
    std::map<std::string, Targets> running_ LU_GUARDED_BY(mutex_);
    // The local folders already swept of a crash's temporaries: once each, not at every restart of a watch.
    std::set<std::string> swept_ LU_GUARDED_BY(mutex_);
    std::thread restarter_;  // last: started once the rest is in place
};

}  // namespace liveupdate::host::sync_back
