// Where a per-update exec runs, proven from inside: an exec reaches a pod by
// its name, so a pod deleted and made again under it (a StatefulSet's) between
// a look at the pod and the exec would take the update. The gated command
// first says it runs and waits for a go-ahead on stdin; the pod is looked at
// (one GET) only then. Container IDs only move forward: the container the pod
// has at that look, when it is the one meant, is the one the command runs in.
// Without the go-ahead ("stop", or stdin closed) the command writes nothing.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "updaters/kubernetes/kubectl_updater.hpp"

namespace liveupdate::kubernetes {

// argv run by `sh` once it has said it runs and got the go-ahead.
std::vector<std::string> gated_command(const std::vector<std::string> &argv);

// One command for what an update writes: the preparation (argv of
// preparation_commands; none when empty), then `tar -C / -x -f -` on the rest
// of stdin. A failed preparation exits kExitPreparationFailed, before tar.
std::vector<std::string> prepare_then_untar(const std::vector<std::string> &preparation);
inline constexpr int kExitPreparationFailed = 201;

struct GatedOutcome {
    enum class Kind {
        ran,       // it got the go-ahead, or never said it runs for another cause than a missing sh: see outcome
        refused,   // the container meant is not the one it runs in (gone): nothing was written
        no_shell,  // the container has no sh: it never ran, nothing was asked
    };
    Kind kind = Kind::ran;
    ExecOutcome outcome;
    std::string gone;  // refused: why
};

// Runs gated_command(argv) through exec; once it said it runs, asks
// gone_reason (one GET: "" when the container meant is the one the pod has)
// and sends the go-ahead then input, or "stop".
GatedOutcome run_gated(const PodExecFn &exec, const kube::PodExecTarget &target, const std::vector<std::string> &argv,
                       const kube::ExecStdinFn *input, std::chrono::seconds timeout, const updater::UpdateLog &log,
                       const std::function<std::string()> &gone_reason);

}  // namespace liveupdate::kubernetes
