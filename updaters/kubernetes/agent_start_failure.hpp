// Whether lu-agent's failure to start in a pod will not change while the
// container runs (then the agent is refused there: updates take the exec
// path and a digest is `unavailable`) or may pass (then the digest fails and
// the update that needed it is tried again). A restarted daemon's initial
// sync reads `unavailable` as "the container cannot be read", so a cause
// that passes must never be taken for one that lasts.
#pragma once

#include <string>

namespace liveupdate::kubernetes {

// What a failed start of lu-agent came from, as the updater saw it.
struct AgentStartFailure {
    enum class Step { copy, start };
    Step step = Step::start;  // copying it in with tar, or starting it
    int exit_code = -1;       // tar's (copy) or the agent's (start); -1: the exec ended without one
    long api_status = 0;      // the API server's refusal of the exec (HTTP status); 0: none
    std::string said;         // tar's output or the runtime's message
};

// True when the cause lasts as long as the container (see the .cpp for each).
bool lasting_agent_refusal(const AgentStartFailure &failure);

}  // namespace liveupdate::kubernetes
