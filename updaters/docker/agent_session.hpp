// One lu-agent session in a container: the agent started by one exec whose
// hijacked stream stays open; frames of agent/protocol/ go in through the
// exec's stdin and come back demultiplexed from its stdout (its stderr goes
// to the log). Sending drains what arrives meanwhile, so a long pipeline of
// requests never deadlocks against the answers.
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>

#include "common/docker_engine/engine_client.hpp"
#include "common/docker_engine/exec_session.hpp"
#include "common/docker_engine/frame_demuxer.hpp"
#include "agent/protocol/messages.hpp"

namespace liveupdate::docker {

// The session's stream ended or broke (agent killed, container stopped,
// daemon gone), or the agent ended it with a Fatal frame.
class AgentSessionBroken : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

class AgentSession {
public:
    using Clock = std::chrono::steady_clock;
    using LineFn = std::function<void(std::string_view)>;

    // Starts the agent with one exec and does the version handshake. Throws
    // EngineError when the daemon refuses the exec, AgentSessionBroken when
    // the agent does not answer the handshake (with its exec's exit code).
    static std::unique_ptr<AgentSession> start(EngineClient &client, const ExecSpec &spec,
                                               std::chrono::milliseconds timeout, LineFn on_stderr);

    AgentSession(const AgentSession &) = delete;
    AgentSession &operator=(const AgentSession &) = delete;

    // False once the stream has ended; never blocks.
    bool alive();
    void send(std::string_view frame, Clock::time_point deadline);
    agent::Frame receive(Clock::time_point deadline);
    const std::string &description() const noexcept { return description_; }
    const std::string &exec_id() const noexcept { return exec_id_; }
    // The agent exec's exit code once the stream ended; -1 when unknown.
    int exit_code();

private:
    AgentSession(EngineClient &client, OpenExec exec, LineFn on_stderr);
    // Reads what is there without blocking; sets ended_ at EOF.
    void drain();
    [[noreturn]] void broken(const std::string &doing);

    EngineClient &client_;
    std::string exec_id_;
    RawConnection connection_;
    LineSplitter stderr_lines_;
    FrameDemuxer demuxer_;
    agent::FrameDecoder decoder_;
    std::string description_;
    bool ended_ = false;
};

}  // namespace liveupdate::docker
