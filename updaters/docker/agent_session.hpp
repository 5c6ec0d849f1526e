// One lu-agent session in a container: the agent started by one exec whose
// hijacked stream stays open; frames of common/agent_protocol/ go in through the
// exec's stdin and come back demultiplexed from its stdout (its stderr goes
// to the log). Sending drains what arrives meanwhile, so a long pipeline of
// requests never deadlocks against the answers.
#pragma once

#include <chrono>
#include <deque>
#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include "common/agent_client/agent_stream.hpp"
#include "common/agent_protocol/messages.hpp"
#include "common/docker_engine/engine_client.hpp"
#include "common/docker_engine/exec_session.hpp"
#include "common/docker_engine/frame_demuxer.hpp"
#include "common/line_splitter.hpp"

namespace liveupdate::docker {

using agent_client::AgentSessionBroken;

// No answer by the deadline: the stream may still be in step (a paused
// container's agent answers once it runs again).
class AgentAnswerLate : public AgentSessionBroken {
public:
    using AgentSessionBroken::AgentSessionBroken;
};

class AgentSession : public agent_client::AgentStream {
public:
    using LineFn = std::function<void(std::string_view)>;

    // Starts the agent with one exec and does the version handshake. Throws
    // EngineError when the daemon refuses the exec, AgentSessionBroken when
    // the agent does not answer the handshake (with its exec's exit code).
    static std::unique_ptr<AgentSession> start(docker_engine::EngineClient &client, const docker_engine::ExecSpec &spec,
                                               std::chrono::milliseconds timeout, LineFn on_stderr);

    AgentSession(const AgentSession &) = delete;
    AgentSession &operator=(const AgentSession &) = delete;

    // Where the agent's stderr lines go: the log of the update or digest in
    // progress, set for its duration (the session outlives each one). Lines
    // that arrive with no use in progress wait for the next (at most kHeldLines).
    void route_stderr(LineFn sink);
    static constexpr std::size_t kHeldLines = 64;

    // False once the stream has ended; never blocks.
    bool alive();
    void send(std::string_view frame, Clock::time_point deadline) override;
    agent_protocol::Frame receive(Clock::time_point deadline) override;
    const std::string &description() const noexcept { return description_; }
    const std::string &exec_id() const noexcept { return exec_id_; }
    // The agent exec's exit code once the stream ended; -1 when unknown.
    int exit_code();

private:
    AgentSession(docker_engine::EngineClient &client, docker_engine::OpenExec exec, LineFn on_stderr);
    // Reads what is there without blocking; sets ended_ at EOF.
    void drain();
    [[noreturn]] void broken(const std::string &doing);

    docker_engine::EngineClient &client_;
    std::string exec_id_;
    docker_engine::RawConnection connection_;
    void stderr_line(std::string_view line);

    LineFn stderr_sink_;
    std::deque<std::string> held_lines_;
    std::size_t dropped_lines_ = 0;
    common::LineSplitter stderr_lines_;
    docker_engine::FrameDemuxer demuxer_;
    agent_protocol::FrameDecoder decoder_;
    std::string description_;
    bool ended_ = false;
};

}  // namespace liveupdate::docker
