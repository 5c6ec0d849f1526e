// The kubernetes updater's exec through the API server (no kubectl): the
// client is made from the kubeconfig on first use, so a broken kubeconfig is
// reported by the update that needs it, naming file and field.
#pragma once

#include <memory>
#include <mutex>

#include "common/kube/api_client.hpp"
#include "common/mutex.hpp"
#include "updaters/kubernetes/kubectl_updater.hpp"

namespace liveupdate::kubernetes {

class ApiExec {
public:
    explicit ApiExec(const KubectlConfig &config) : config_(config) {}

    // Runs a command in the target container through the exec WebSocket.
    ExecOutcome operator()(const kube::PodExecTarget &target, const std::vector<std::string> &command,
                           const kube::ExecStdinFn *input, std::chrono::seconds timeout, const updater::UpdateLog &log);

    // Made from the kubeconfig on first use; throws naming what is wrong in it.
    kube::ApiClient &client();

private:
    KubectlConfig config_;
    common::Mutex mutex_;
    std::unique_ptr<kube::ApiClient> client_ LU_GUARDED_BY(mutex_);
};

}  // namespace liveupdate::kubernetes
