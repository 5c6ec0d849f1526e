// Readies each container for its first update when a LiveUpdate first
// selects it (lu_updater_api.prepare: the docker updater starts lu-agent), on
// a thread of its own: no reconcile waits for it, a container that never gets
// a save pays nothing visible, and a failure is only logged (the update then
// starts what it needs, as without warm-up).
#pragma once

#include <condition_variable>
#include <deque>
#include <functional>
#include <set>
#include <string>
#include <thread>

#include <boost/json.hpp>

#include "common/log_level.hpp"
#include "common/mutex.hpp"
#include "host/core/updater_registry.hpp"
#include "host/verify/verify_targets.hpp"

namespace liveupdate::host::up {

class ContainerWarmUp {
public:
    using TargetsFn = std::function<verify::LiveUpdateTargets(const std::string &live_update)>;
    using LogFn = std::function<void(common::LogLevel, const std::string &live_update, const std::string &line)>;

    ContainerWarmUp(TargetsFn targets, const UpdaterRegistry &updaters, LogFn log);
    ~ContainerWarmUp();  // waits for the preparation in progress, drops the rest
    ContainerWarmUp(const ContainerWarmUp &) = delete;
    ContainerWarmUp &operator=(const ContainerWarmUp &) = delete;

    // After a reconcile, with the status it left: a container it lists that
    // was never prepared queues the LiveUpdate. Cheap; never blocks on updaters.
    void reconciled(const std::string &live_update, const boost::json::value &status);

private:
    void run(const std::stop_token &stop);
    void prepare(const std::string &live_update);

    TargetsFn targets_;
    const UpdaterRegistry &updaters_;
    LogFn log_;
    common::Mutex mutex_;
    std::condition_variable_any wake_;
    std::deque<std::string> due_ LU_GUARDED_BY(mutex_);     // LiveUpdates with a container to prepare, each once
    std::set<std::string> prepared_ LU_GUARDED_BY(mutex_);  // the IDs of the containers prepared (or tried)
    std::jthread worker_;
};

}  // namespace liveupdate::host::up
