// One lu-agent session in a pod's container: the agent started by one exec
// through the API server whose WebSocket stays open; lu-agent frames (common/agent_protocol) go
// in on stdin (channel 0) and come back on stdout (channel 1); its stderr
// (channel 2) goes to the log of the update in progress.
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "common/agent_client/agent_stream.hpp"
#include "common/agent_protocol/frame.hpp"
#include "common/kube/pod_exec_stream.hpp"
#include "common/line_splitter.hpp"

namespace liveupdate::kubernetes {

// The agent's exec ended before the handshake: how (exit code 127: the
// agent is not in the container).
class AgentExecEnded : public agent_client::AgentSessionBroken {
public:
    AgentExecEnded(int exit_code, const std::string &message) : AgentSessionBroken(message), exit_code(exit_code) {}
    int exit_code;
};

class PodAgentSession : public agent_client::AgentStream {
public:
    using LineFn = std::function<void(std::string_view)>;

    // Starts `command` (the agent) and does the handshake. Throws
    // kube::PodExecError / kube::ApiError when the exec is refused or the
    // server unreachable, AgentExecEnded when the agent's exec ended first,
    // AgentSessionBroken when it does not answer.
    PodAgentSession(kube::ApiClient &client, const kube::PodExecTarget &target, const std::vector<std::string> &command,
                    std::chrono::milliseconds timeout);

    void send(std::string_view frames, Clock::time_point deadline) override;
    agent_protocol::Frame receive(Clock::time_point deadline) override;
    // False once the stream ended (or holds answers nobody asked for); never blocks.
    bool alive();
    // Where the agent's stderr lines go from now on (the update in progress's log).
    void log_stderr_to(LineFn on_line) { on_stderr_ = std::move(on_line); }
    const std::string &description() const noexcept { return description_; }

private:
    void pass_stderr();
    [[noreturn]] void broken(const std::string &doing);

    kube::PodExecStream stream_;
    agent_protocol::FrameDecoder decoder_;
    LineFn on_stderr_;
    common::LineSplitter stderr_lines_;
    std::string description_;
};

}  // namespace liveupdate::kubernetes
