#include "updaters/kubernetes/api_exec.hpp"

#include "common/kube/pod_exec.hpp"
#include "common/mutex.hpp"

namespace liveupdate::kubernetes {

kube::ApiClient &ApiExec::client() {
    common::MutexLock lock(mutex_);
    if (!client_) {
        kube::LoadOptions options;
        options.kubeconfig = config_.kubeconfig;
        options.context = config_.context;
        client_ = std::make_unique<kube::ApiClient>(kube::load_client_config(options));
    }
    return *client_;
}

ExecOutcome ApiExec::operator()(const kube::PodExecTarget &target, const std::vector<std::string> &command,
                                const kube::ExecStdinFn *input, std::chrono::seconds timeout,
                                const updater::UpdateLog &log) {
    ExecOutcome outcome;
    OutputLines lines(log);
    try {
        const kube::PodExecResult r = kube::exec_in_pod(
            client(), target, command, input, [&lines](bool err, std::string_view d) { lines.add(err, d); },
            std::chrono::duration_cast<std::chrono::milliseconds>(timeout));
        lines.flush();
        outcome.output = lines.tail();
        outcome.exit_code = r.exit_code;
        outcome.timed_out = r.timed_out;
        if (r.timed_out || r.exit_code < 0) {
            outcome.remote = false;
            outcome.failure = "exec through the API server: " + r.failure;
            if (!r.timed_out) outcome.failure += " (was the pod deleted or its container restarted?)";
        } else if (r.exit_code == 127 && !r.failure.empty()) {
            outcome.output = r.failure;  // what the runtime said about the missing executable
        }
    } catch (const kube::PodExecError &e) {
        outcome.remote = false;
        outcome.failure = e.what();
        if (e.status == 403)
            outcome.failure +=
                "\nThe user needs the RBAC permission to create pods/exec in this namespace (or choose "
                "another context).";
    } catch (const std::exception &e) {
        outcome.remote = false;
        outcome.failure = e.what();
    }
    return outcome;
}

}  // namespace liveupdate::kubernetes
