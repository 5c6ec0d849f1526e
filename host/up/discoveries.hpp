// The discoveries the daemon's objects ask for, each made with the first
// object of its kind: DockerComposeService containers on the Docker engine,
// KubernetesDiscovery pods on the API server. Thread-safe.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include <boost/json.hpp>

#include "common/mutex.hpp"
#include "host/compose_discovery/compose_discovery.hpp"
#include "host/core/object_store.hpp"
#include "host/kubernetes/kubernetes_discovery.hpp"

namespace liveupdate::host::up {

class Discoveries {
public:
    // On a discovery's thread: the status it reports for the object kind/name.
    using StatusFn = std::function<void(const std::string &kind, const std::string &name, const boost::json::object &)>;
    using WarningFn = std::function<void(std::string_view)>;

    Discoveries(kube::LoadOptions kubeconfig, StatusFn on_status, WarningFn on_warning);

    compose_discovery::ComposeDiscovery &compose();
    kubernetes::PodDiscoveryWatcher &kubernetes();
    // Stops following the object, when its kind's discovery was made.
    void unwatch(const ObjectKey &key);
    // Waits for their threads; none reports afterwards.
    void stop();

private:
    kube::LoadOptions kubeconfig_;
    StatusFn on_status_;
    WarningFn on_warning_;
    common::Mutex mutex_;
    std::unique_ptr<compose_discovery::ComposeDiscovery> compose_ LU_GUARDED_BY(mutex_);
    std::unique_ptr<kubernetes::PodDiscoveryWatcher> kubernetes_ LU_GUARDED_BY(mutex_);
};

}  // namespace liveupdate::host::up
