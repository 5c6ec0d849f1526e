// The kubernetes updater: Tilt's ExecUpdater semantics through
// `kubectl exec`: rm -rf of deleted paths, `tar -C / -x -f -` fed with the
// archive, then the run commands; restarts are not supported (hot reload only).
#pragma once

#include <chrono>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "implied_dirs_filter.hpp"

namespace liveupdate::kubernetes {

struct KubectlConfig {
    std::string kubectl = "kubectl"; // program, looked up on PATH
    std::string context;             // --context, when set
    std::string kubeconfig;          // --kubeconfig, when set
    std::chrono::seconds timeout{60};       // deleting and copying
    std::chrono::seconds run_timeout{600};  // each run command
};

// {"kubectl", "context", "kubeconfig", "timeoutSeconds", "runTimeoutSeconds"};
// throws std::invalid_argument naming the field.
KubectlConfig parse_kubectl_config(std::string_view json);

struct PodContainer {
    std::string namespace_name;
    std::string pod;
    std::string container;
};

struct PodUpdate {
    PodContainer target;
    bool has_copies = false;
    docker::ArchiveReadFn archive;
    std::vector<std::string> delete_paths;
    struct Run {
        std::vector<std::string> argv;
        bool echo_off = false;
    };
    std::vector<Run> runs;
    bool restart = false;
};

struct PodUpdateResult {
    enum class Kind { ok, run_failure, infra_failure };
    Kind kind = Kind::ok;
    int exit_code = 0;
    std::string message;
};

using LineLogFn = std::function<void(int level, std::string_view line)>; // lu_log_level values

// The argv of `kubectl exec` for a command in the target container.
std::vector<std::string> kubectl_exec_argv(const KubectlConfig &config, const PodContainer &target, bool with_stdin,
                                           const std::vector<std::string> &command);

// "command terminated with exit code N" in kubectl's stderr: N; else -1 (kubectl's own failure).
int remote_exit_code(std::string_view kubectl_stderr);

PodUpdateResult update_pod_container(const KubectlConfig &config, const PodUpdate &update, const LineLogFn &log);

}  // namespace liveupdate::kubernetes
