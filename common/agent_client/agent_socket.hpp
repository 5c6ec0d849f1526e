// An lu-agent session moved to the agent's unix socket (OpenSocket in
// common/agent_protocol/messages.hpp), for a host that reaches the
// container's filesystem: frames go straight between the two processes,
// not through the engine's exec stream. The exec that started the agent
// stays open for the session's lifetime and still carries its stderr and
// how it ended.
#pragma once

#include <chrono>
#include <memory>
#include <string>

#include "common/agent_client/agent_transport.hpp"
#include "common/wake_fd.hpp"

namespace liveupdate::agent_client {

class SocketAgentTransport final : public AgentTransport {
public:
    // socket: connected, past the token exchange; exec: the stream that started the agent.
    SocketAgentTransport(int socket, std::unique_ptr<AgentTransport> exec);
    SocketAgentTransport(const SocketAgentTransport &) = delete;
    SocketAgentTransport &operator=(const SocketAgentTransport &) = delete;
    ~SocketAgentTransport() override;

    Progress write(std::string_view data, Clock::time_point deadline, Sink &sink) override;
    Progress read(Clock::time_point deadline, Sink &sink) override;
    bool idle(Sink &sink) override;
    End end() override;
    bool interruptible() const override { return true; }
    void interrupt() override { interrupted_.wake(); }

private:
    // Hands over what arrived on either side without waiting; sets ended_.
    void drain(Sink &sink, bool socket_ready, bool exec_ready);
    // Waits for either side; false when the deadline passed first (or, with
    // interruptible, interrupt() came).
    bool wait(short socket_events, Clock::time_point deadline, short &socket_ready, bool &exec_ready,
              bool interruptible = false);

    int socket_;
    std::unique_ptr<AgentTransport> exec_;
    Sink *sink_ = nullptr;  // the last caller's, for the exec's last stderr bytes
    bool ended_ = false;
    std::string failure_;
    common::WakeFd interrupted_;
};

// A random token of 32 hex digits (getrandom); throws std::runtime_error when there is no randomness.
std::string random_token();

// Connects to the agent's socket at path as the container sees it, its
// root at root on this machine (/proc/PID/root; empty: this machine's own
// root), and exchanges the tokens
// (SocketHello, SocketWelcome) by the deadline: the connected descriptor.
// The path is resolved inside root, as in the container, and its last part
// must be a socket, not a link: the container's files never lead to a socket
// of the host's. Throws std::runtime_error saying why not (then the session
// stays on its stream).
int connect_agent_socket(const std::string &root, const std::string &path, const std::string &client_token,
                         const std::string &agent_token, std::chrono::steady_clock::time_point deadline);

}  // namespace liveupdate::agent_client
