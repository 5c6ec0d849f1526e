// The kubernetes updater's way to lu-agent: the agent started by one exec
// through the API server whose WebSocket stays open; frames go in on stdin
// (channel 0) and come back on stdout (channel 1), its stderr on channel 2.
#pragma once

#include <chrono>
#include <string>
#include <vector>

#include "common/agent_client/agent_transport.hpp"
#include "common/kube/pod_exec_stream.hpp"

namespace liveupdate::kubernetes {

class PodAgentTransport final : public agent_client::AgentTransport {
public:
    // Starts `command` (the agent). Throws kube::PodExecError / kube::ApiError
    // when the exec is refused or the server unreachable.
    PodAgentTransport(kube::ApiClient &client, const kube::PodExecTarget &target,
                      const std::vector<std::string> &command, std::chrono::milliseconds timeout)
        : stream_(client, target, command, timeout) {}

    Progress write(std::string_view data, Clock::time_point deadline, Sink &sink) override;
    Progress read(Clock::time_point deadline, Sink &sink) override;
    bool idle(Sink &sink) override;
    End end() override;
    bool interruptible() const override { return true; }
    void interrupt() override { stream_.interrupt(); }

private:
    void pass_stderr(Sink &sink);

    kube::PodExecStream stream_;
};

}  // namespace liveupdate::kubernetes
