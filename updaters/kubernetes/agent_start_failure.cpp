#include "updaters/kubernetes/agent_start_failure.hpp"

namespace liveupdate::kubernetes {
namespace {

constexpr long kForbidden = 403;
constexpr int kCannotExecute = 126;
constexpr int kNotFound = 127;

bool says(const std::string &text, const char *what) { return text.find(what) != std::string::npos; }

}  // namespace

bool lasting_agent_refusal(const AgentStartFailure &failure) {
    // RBAC denies pods/exec: only an administrator lifts it, never a retry.
    if (failure.api_status == kForbidden) return true;
    if (failure.step == AgentStartFailure::Step::copy) {
        // No tar in the image: an image does not grow one.
        if (failure.exit_code == kNotFound) return true;
        // EROFS (its strerror text, the same in glibc, musl and busybox): a
        // read-only root stays so for the container's life. tar says it and
        // ends while its input still streams, so the exec mostly ends without
        // a status (exit code -1): the words are tar's all the same. Any other
        // failure (a full disk, say) may pass.
        return says(failure.said, "Read-only file system");
    }
    // Found but not executable (a noexec mount, another CPU architecture, no
    // execute permission): the container's files and mounts, which do not
    // change while it runs. The runtime's words where it gives no exit code.
    if (failure.exit_code == kCannotExecute) return true;
    if (failure.exit_code < 0 && (says(failure.said, "exec format error") || says(failure.said, "permission denied")))
        return true;
    // Everything else passes: the API server's 5xx, a timeout, a reset
    // connection, a pod not running yet, an agent gone again after its copy
    // (the container restarted meanwhile), an agent that ended early.
    return false;
}

}  // namespace liveupdate::kubernetes
