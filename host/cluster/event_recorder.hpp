// Writes an operator's Events to the API server (events.k8s.io/v1) on a
// thread of its own: record() counts an occurrence (cluster/event_ledger.hpp)
// and returns at once; the thread creates each Event, then PATCHes its series
// as repeats come, as paced as the ledger allows. A write that fails is
// logged once per status and reason (an operator without the right to create
// Events still updates).
#pragma once

#include <condition_variable>
#include <functional>
#include <set>
#include <string>
#include <thread>

#include "common/kube/api_client.hpp"
#include "common/mutex.hpp"
#include "host/cluster/event_ledger.hpp"

namespace liveupdate::host::cluster {

inline constexpr const char *kEventController = "lu-host";

class EventRecorder {
public:
    using WarnFn = std::function<void(const std::string &)>;

    EventRecorder(kube::ApiClient &client, std::string namespace_name, std::string instance, WarnFn warn,
                  EventLimits limits = {});
    ~EventRecorder();
    EventRecorder(const EventRecorder &) = delete;
    EventRecorder &operator=(const EventRecorder &) = delete;

    void record(const EventRegarding &regarding, const EventNote &note);
    void forget(const std::string &kind, const std::string &name);
    // Writes what is due, then ends the thread.
    void stop();

private:
    void run();
    void write(const EventWrite &w);
    void warn_once(const std::string &what, long status, const std::string &body);

    kube::ApiClient &client_;
    std::string namespace_;
    std::string instance_;
    WarnFn warn_;
    std::string path_;

    common::Mutex mutex_;
    std::condition_variable wake_;
    EventLedger ledger_ LU_GUARDED_BY(mutex_);
    bool stopping_ LU_GUARDED_BY(mutex_) = false;
    std::set<std::string> warned_;  // the writer thread's
    std::thread thread_;
};

}  // namespace liveupdate::host::cluster
