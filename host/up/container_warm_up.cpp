#include "host/up/container_warm_up.hpp"
#include "common/mutex.hpp"

#include <algorithm>
#include <exception>

#include "common/json_fields.hpp"

namespace liveupdate::host::up {
namespace json = boost::json;

ContainerWarmUp::ContainerWarmUp(TargetsFn targets, const UpdaterRegistry &updaters, LogFn log)
    : targets_(std::move(targets)), updaters_(updaters), log_(std::move(log)) {
    worker_ = std::jthread([this](const std::stop_token &stop) { run(stop); });
}

ContainerWarmUp::~ContainerWarmUp() {
    worker_.request_stop();
    wake_.notify_all();
}

void ContainerWarmUp::reconciled(const std::string &live_update, const json::value &status) {
    if (!status.is_object()) return;  // a LiveUpdate just removed has no status
    const json::value *containers = common::member(status, {"containers"});
    if (containers == nullptr || !containers->is_array()) return;
    common::MutexLock lock(mutex_);
    bool unprepared = false;
    for (const json::value &c : containers->as_array()) {
        const std::string id = common::string_field(c, {"containerID"});
        unprepared = unprepared || (!id.empty() && !prepared_.contains(id));
    }
    if (!unprepared || std::find(due_.begin(), due_.end(), live_update) != due_.end()) return;
    due_.push_back(live_update);
    wake_.notify_all();
}

void ContainerWarmUp::run(const std::stop_token &stop) {
    for (;;) {
        std::string live_update;
        {
            common::MutexLock lock(mutex_);
            if (!lock.wait(wake_, stop, [&]() LU_REQUIRES(mutex_) { return !due_.empty(); })) return;
            live_update = std::move(due_.front());
            due_.pop_front();
        }
        prepare(live_update);
    }
}

void ContainerWarmUp::prepare(const std::string &live_update) {
    const verify::LiveUpdateTargets targets = targets_(live_update);
    if (!targets.problem.empty() || targets.via.empty()) return;  // nothing to warm: updates say why, if need be
    const std::shared_ptr<const Updater> updater = updaters_.find(targets.via);
    if (!updater) return;
    for (const verify::RunningContainer &c : targets.containers) {
        {
            common::MutexLock lock(mutex_);
            if (!prepared_.insert(c.ref.id).second) continue;
        }
        try {
            if (const auto error = updater->prepare(c.ref))
                log_(common::LogLevel::info, live_update,
                     "Could not prepare container " + c.display + " ahead of its first update (" + *error +
                         "); its first update does it");
        } catch (const std::exception &e) {
            log_(common::LogLevel::info, live_update,
                 "Could not prepare container " + c.display + " ahead of its first update (" + e.what() +
                     "); its first update does it");
        }
    }
}

}  // namespace liveupdate::host::up
