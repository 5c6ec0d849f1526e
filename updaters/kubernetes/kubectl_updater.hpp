// The kubernetes updater: Tilt's ExecUpdater semantics through an exec into
// the pod (the API server's exec WebSocket, or `kubectl exec` by setting):
// rm -rf of deleted paths, `tar -C / -x -f -` fed with the archive, then the
// run commands. A restart (Kubernetes has none in place) is the supervised
// process's, through lu-agent (pod_agents.hpp); refused on this path.
#pragma once

#include <chrono>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "common/kube/pod_exec.hpp"
#include "common/line_splitter.hpp"
#include "liveupdate/updater.hpp"
#include "updaters/shared/implied_dirs_filter.hpp"

namespace liveupdate::kubernetes {

struct KubectlConfig {
    enum class Exec { api, kubectl };
    Exec exec = Exec::api;                  // how commands reach the pod
    std::string kubectl = "kubectl";        // program, looked up on PATH
    std::string context;                    // --context, when set
    std::string kubeconfig;                 // --kubeconfig, when set
    std::chrono::seconds timeout{60};       // deleting and copying
    std::chrono::seconds run_timeout{600};  // each run command
    bool agent = true;                      // through lu-agent where it can run (exec "api" only)
    std::string agent_path;                 // the lu-agent binary; empty: found beside the plugin
};

// {"exec": "api"|"kubectl", "kubectl", "context", "kubeconfig", "timeoutSeconds", "runTimeoutSeconds", "agent",
//  "agentPath"};
// throws std::invalid_argument naming the field.
KubectlConfig parse_kubectl_config(std::string_view json);

// Why a restart cannot be done and what to change: Kubernetes restarts no
// container in place, so the process must run under `lu-agent supervise`.
std::string restart_needs_supervisor(const std::string &pod_text);

// The exec target of an update's container (its name is the pod's container).
kube::PodExecTarget exec_target_of(const updater::ContainerRef &container);

// "pod NS/POD container NAME", for messages.
std::string pod_text(const kube::PodExecTarget &target);

// The argv of `kubectl exec` for a command in the target container.
std::vector<std::string> kubectl_exec_argv(const KubectlConfig &config, const kube::PodExecTarget &target,
                                           bool with_stdin, const std::vector<std::string> &command);

// "command terminated with exit code N" in kubectl's stderr: N; else -1 (kubectl's own failure).
int remote_exit_code(std::string_view kubectl_stderr);

// One command run in the target container.
struct ExecOutcome {
    int exit_code = 0;   // the remote command's, when it ran
    bool remote = true;  // false: the exec itself failed (see failure)
    bool timed_out = false;
    std::string output;   // tail of stdout and stderr
    std::string failure;  // why the exec failed, when !remote
};
// input, when given, feeds the command's stdin; a write of no bytes sends
// nothing and ends the feeding (it throws) once the command has ended.
using PodExecFn = std::function<ExecOutcome(const kube::PodExecTarget &target, const std::vector<std::string> &command,
                                            const kube::ExecStdinFn *input, std::chrono::seconds timeout,
                                            const updater::UpdateLog &log)>;

// Runs commands through `kubectl exec`.
PodExecFn kubectl_exec_fn(const KubectlConfig &config);

// Why the container an update is for is not the one its pod has now (one
// GET: container_gone_reason); "" when it is, or when it cannot tell.
using GoneReasonFn = std::function<std::string()>;

// Deletes, copies and runs of one update through `exec`, logging to
// request.log. What the update writes goes through one gated command
// (exec_gate.hpp) that asks gone_reason once it runs in the container: a
// container that is not the one meant ends the update as not running (C07)
// with nothing written. Without gone_reason nothing is asked.
updater::Outcome update_pod_container(const PodExecFn &exec, const KubectlConfig &config,
                                      const updater::Request &request, const GoneReasonFn &gone_reason = {});

// Through `kubectl exec`, nothing asked.
updater::Outcome update_pod_container(const KubectlConfig &config, const updater::Request &request);

// Splits output into log lines (kept apart per stream) and keeps its tail.
class OutputLines {
public:
    explicit OutputLines(const updater::UpdateLog &log);
    OutputLines(const OutputLines &) = delete;  // its splitters point back at it
    OutputLines &operator=(const OutputLines &) = delete;
    void add(bool is_stderr, std::string_view data);
    void flush();
    const std::string &tail() const { return kept_; }
    const std::string &stderr_tail() const { return err_all_; }

private:
    updater::UpdateLog log_;
    common::LineSplitter out_lines_, err_lines_;
    std::string kept_, err_all_;
};

}  // namespace liveupdate::kubernetes
