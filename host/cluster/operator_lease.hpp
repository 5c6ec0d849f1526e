// The Lease that makes an operator the only one of its namespace
// (coordination.k8s.io/v1, named lu-host-operator; rules in lease_rules.hpp):
// taken at start or refused naming its holder, renewed on its own thread
// every third of its duration, deleted on a clean stop so that the next
// operator need not wait for it to expire.
#pragma once

#include <condition_variable>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

#include "common/kube/api_client.hpp"
#include "common/mutex.hpp"
#include "host/cluster/operator_identity.hpp"

namespace liveupdate::host::cluster {

class OperatorLease {
public:
    using WarnFn = std::function<void(const std::string &)>;

    OperatorLease(kube::ApiClient &client, std::string namespace_name, OperatorProcess me, int duration_seconds = 15);
    ~OperatorLease();
    OperatorLease(const OperatorLease &) = delete;
    OperatorLease &operator=(const OperatorLease &) = delete;

    // Takes the Lease; throws std::runtime_error naming its holder when another operator holds it.
    // Returns "" or, when it took over the Lease of a holder whose process is gone, what it did.
    std::string acquire();
    void start_renewing(WarnFn warn);
    // Stops renewing and deletes the Lease when it is still ours.
    void release();

private:
    std::string path() const;
    std::optional<std::string> try_acquire();
    void renew_loop();

    kube::ApiClient &client_;
    std::string namespace_;
    OperatorProcess me_;
    std::string identity_;
    int duration_seconds_;
    WarnFn warn_;
    bool held_ = false;
    bool stopping_ LU_GUARDED_BY(mutex_) = false;
    common::Mutex mutex_;
    std::condition_variable wake_;
    std::thread thread_;
};

}  // namespace liveupdate::host::cluster
