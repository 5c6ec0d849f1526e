#include "host/cluster/event_recorder.hpp"

#include <chrono>

namespace liveupdate::host::cluster {
namespace json = boost::json;

EventRecorder::EventRecorder(kube::ApiClient &client, std::string namespace_name, std::string instance, WarnFn warn,
                             EventLimits limits)
    : client_(client),
      namespace_(std::move(namespace_name)),
      instance_(std::move(instance)),
      warn_(std::move(warn)),
      path_("/apis/events.k8s.io/v1/namespaces/" + kube::url_escape(namespace_) + "/events"),
      ledger_(limits) {
    thread_ = std::thread([this] { run(); });
}

EventRecorder::~EventRecorder() { stop(); }

void EventRecorder::record(const EventRegarding &regarding, const EventNote &note) {
    {
        common::MutexLock lock(mutex_);
        ledger_.observe(regarding, note, common::MicroTime::from_system(std::chrono::system_clock::now()));
    }
    wake_.notify_all();
}

void EventRecorder::forget(const std::string &kind, const std::string &name) {
    common::MutexLock lock(mutex_);
    ledger_.forget(kind, name);
}

void EventRecorder::stop() {
    {
        common::MutexLock lock(mutex_);
        stopping_ = true;
    }
    wake_.notify_all();
    if (thread_.joinable()) thread_.join();
}

void EventRecorder::run() {
    common::MutexLock lock(mutex_);
    for (;;) {
        const auto now = EventLedger::Clock::now();
        std::vector<EventWrite> writes = ledger_.due(now);
        if (writes.empty()) {
            if (stopping_) return;  // what the bucket still holds back is not waited for at stop
            const std::optional<EventLedger::Clock::time_point> next = ledger_.next_due(now);
            if (next)
                lock.wait_until(wake_, *next);
            else
                lock.wait(wake_);
            continue;
        }
        lock.unlock();
        for (const EventWrite &w : writes) write(w);
        lock.lock();
    }
}

void EventRecorder::write(const EventWrite &w) {
    try {
        if (!w.name.empty()) {
            const kube::ApiResponse patched =
                client_.request("PATCH", path_ + "/" + kube::url_escape(w.name), json::serialize(series_patch(w)));
            if (patched.status / 100 == 2) return;
            if (patched.status != 404) return warn_once("not counted on Event " + w.name, patched.status, patched.body);
            // Expired (an Event lives an hour): made again, with every occurrence.
            common::MutexLock lock(mutex_);
            ledger_.lost(w);
            wake_.notify_all();
            return;
        }
        const json::object event = event_object(w, namespace_, kEventController, instance_);
        const kube::ApiResponse created = client_.request("POST", path_, json::serialize(event));
        if (created.status / 100 != 2) return warn_once("not created", created.status, created.body);
        common::MutexLock lock(mutex_);
        ledger_.written(w, event.at("metadata").at("name").as_string().c_str());
    } catch (const std::exception &e) {
        warn_once(std::string("not written: ") + e.what(), 0, "");
    }
}

void EventRecorder::warn_once(const std::string &what, long status, const std::string &body) {
    const std::string reason = status != 0 ? kube::status_reason(body) : what;
    if (!warned_.insert(std::to_string(status) + " " + reason).second) return;
    std::string text = "Event of " + namespace_ + ": " + what;
    if (status != 0) text += ": " + std::to_string(status) + " " + kube::status_message(body);
    if (status == 403) text += " (`lu-host rbac --namespace " + namespace_ + "` prints the Role the operator needs)";
    warn_(text + " (said once)");
}

}  // namespace liveupdate::host::cluster
