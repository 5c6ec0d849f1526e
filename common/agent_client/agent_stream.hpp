// What the host side of an lu-agent session needs from its transport: frames
// out, frames back, each within a deadline. The docker updater's hijacked
// exec stream and the kubernetes updater's exec WebSocket both provide it;
// agent_apply.hpp works over either.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <stdexcept>
#include <string>
#include <string_view>

#include "common/agent_protocol/frame.hpp"

namespace liveupdate::agent_client {

// The session's stream ended or broke (agent killed, container stopped,
// connection gone), or the agent ended it with a Fatal frame.
class AgentSessionBroken : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// No answer by the deadline: unlike a broken stream, it may still be in step
// (a paused container's agent answers once the container runs again).
class AgentAnswerLate : public AgentSessionBroken {
public:
    using AgentSessionBroken::AgentSessionBroken;
};

class AgentStream {
public:
    using Clock = std::chrono::steady_clock;
    // One line of the agent's stderr, for the log of the use in progress.
    using LineFn = std::function<void(std::string_view)>;

    virtual ~AgentStream() = default;
    // Sends the bytes of whole frames; reading what arrives meanwhile, so a
    // long pipeline never deadlocks against the answers. Throws AgentSessionBroken.
    virtual void send(std::string_view frames, Clock::time_point deadline) = 0;
    // The next frame from the agent (never a Fatal one: that throws AgentSessionBroken).
    virtual agent_protocol::Frame receive(Clock::time_point deadline) = 0;
    // The protocol version the agent speaks; a stream that does not know is
    // driven as the oldest (kOldestProtocolVersion), without what came after.
    virtual std::uint32_t protocol_version() const noexcept { return agent_protocol::kOldestProtocolVersion; }
    // True the first time it is asked in this session, then false: an update
    // with a forward guard through an agent older than kForwardGuardVersion
    // says once that its writes are unguarded. A stream without a session's
    // memory says it each time.
    virtual bool take_unguarded_notice() noexcept { return true; }
};

// The version handshake, first on every session: the agent's description
// ("lu-agent 1 (pid 12, uid 0)"), and the version it speaks in `version`
// when given (from kOldestProtocolVersion: an older agent is driven without
// what came after). Throws AgentSessionBroken when the agent does not
// answer, or speaks a version outside that range.
std::string handshake(AgentStream &stream, AgentStream::Clock::time_point deadline, std::uint32_t *version = nullptr);

}  // namespace liveupdate::agent_client
