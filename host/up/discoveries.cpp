#include "host/up/discoveries.hpp"
#include "common/mutex.hpp"

namespace liveupdate::host::up {
namespace json = boost::json;

Discoveries::Discoveries(kube::LoadOptions kubeconfig, StatusFn on_status, WarningFn on_warning)
    : kubeconfig_(std::move(kubeconfig)), on_status_(std::move(on_status)), on_warning_(std::move(on_warning)) {}

compose_discovery::ComposeDiscovery &Discoveries::compose() {
    common::MutexLock lock(mutex_);
    if (!compose_)
        compose_ = std::make_unique<compose_discovery::ComposeDiscovery>(
            compose_discovery::ComposeDiscovery::Options{},
            [this](const std::string &name, const json::object &status) {
                on_status_("DockerComposeService", name, status);
            },
            on_warning_);
    return *compose_;
}

kubernetes::PodDiscoveryWatcher &Discoveries::kubernetes() {
    common::MutexLock lock(mutex_);
    if (!kubernetes_) {
        kubernetes::PodDiscoveryWatcher::Options o;
        o.kubeconfig = kubeconfig_;
        kubernetes_ = std::make_unique<kubernetes::PodDiscoveryWatcher>(
            std::move(o),
            [this](const std::string &name, const json::object &status) {
                on_status_("KubernetesDiscovery", name, status);
            },
            on_warning_);
    }
    return *kubernetes_;
}

void Discoveries::unwatch(const ObjectKey &key) {
    common::MutexLock lock(mutex_);
    if (key.kind == "DockerComposeService" && compose_) compose_->unwatch(key.name);
    if (key.kind == "KubernetesDiscovery" && kubernetes_) kubernetes_->unwatch(key.name);
}

void Discoveries::stop() {
    std::unique_ptr<compose_discovery::ComposeDiscovery> compose;
    std::unique_ptr<kubernetes::PodDiscoveryWatcher> kubernetes;
    {
        common::MutexLock lock(mutex_);
        compose = std::move(compose_);
        kubernetes = std::move(kubernetes_);
    }
    // Outside the lock: their callbacks may be waiting for it.
    compose.reset();
    kubernetes.reset();
}

}  // namespace liveupdate::host::up
