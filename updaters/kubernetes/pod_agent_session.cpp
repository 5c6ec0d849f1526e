#include "updaters/kubernetes/pod_agent_session.hpp"

#include "common/agent_protocol/messages.hpp"

namespace liveupdate::kubernetes {

using agent_client::AgentSessionBroken;

PodAgentSession::PodAgentSession(kube::ApiClient &client, const kube::PodExecTarget &target,
                                 const std::vector<std::string> &command, std::chrono::milliseconds timeout)
    : stream_(client, target, command, timeout), stderr_lines_([this](std::string_view line) {
          if (on_stderr_) on_stderr_(line);
      }) {
    try {
        description_ = agent_client::handshake(*this, Clock::now() + timeout);
    } catch (const AgentSessionBroken &e) {
        std::string rest;
        if (stream_.read_stdout(rest, Clock::now()) != kube::PodExecStream::Read::ended) throw;
        const auto end = stream_.end();
        throw AgentExecEnded(end.exit_code, end.failure.empty() ? e.what() : end.failure);
    }
}

void PodAgentSession::pass_stderr() { stderr_lines_.feed(stream_.take_stderr()); }

void PodAgentSession::send(std::string_view frames, Clock::time_point deadline) {
    const bool sent = stream_.write_stdin(frames, deadline);
    pass_stderr();
    if (!sent)
        broken(Clock::now() >= deadline ? "the agent took no request for too long (stream stalled)"
                                        : "sending a request");
}

agent_protocol::Frame PodAgentSession::receive(Clock::time_point deadline) {
    for (;;) {
        std::optional<agent_protocol::Frame> frame;
        try {
            frame = decoder_.next();
        } catch (const agent_protocol::ProtocolError &e) {
            throw AgentSessionBroken(std::string("the agent's answer: ") + e.what());
        }
        if (frame) {
            if (frame->type != agent_protocol::MessageType::fatal) return std::move(*frame);
            std::string why;
            try {
                why = agent_protocol::decode<agent_protocol::Fatal>(*frame).message;
            } catch (const agent_protocol::ProtocolError &e) {
                why = e.what();
            }
            throw AgentSessionBroken("the agent ended the session: " + why);
        }
        std::string bytes;
        const auto read = stream_.read_stdout(bytes, deadline);
        pass_stderr();
        if (read == kube::PodExecStream::Read::timed_out) throw AgentSessionBroken("the agent did not answer in time");
        if (read == kube::PodExecStream::Read::ended) broken("waiting for the agent's answer");
        decoder_.feed(bytes);
    }
}

bool PodAgentSession::alive() { return stream_.idle_and_open() && !decoder_.pending(); }

void PodAgentSession::broken(const std::string &doing) {
    const auto end = stream_.end();
    std::string message = doing + ": the agent's stream ended";
    if (end.exit_code >= 0)
        message += " (agent exit code " + std::to_string(end.exit_code) + ")";
    else if (!end.failure.empty())
        message += " (" + end.failure + ")";
    throw AgentSessionBroken(message);
}

}  // namespace liveupdate::kubernetes
