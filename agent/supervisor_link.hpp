// How an lu-agent session reaches `lu-agent supervise` in the same container:
// a unix socket at a well-known path (mode 0600, the supervisor's user), one
// request line and one answer line on each connection.
//   request: "restart <grace ms>\n"
//   answer:  "ok <old pid> <new pid>\n" or "error <why>\n"
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/agent_protocol/messages.hpp"

namespace liveupdate::agent {

// Where the supervisor listens, tried in order: LU_SUPERVISE_SOCKET when set
// (the only place then), else /.lu-agent/supervise.sock beside the copied
// agents, else /tmp/lu-agent-supervise.sock (a read-only /.lu-agent: an
// injected agent's volume).
std::vector<std::string> supervisor_socket_paths();

// Asks the container's supervisor to restart its process; waits for the
// restart up to grace_ms and kAnswerAllowance more. Never throws.
agent_protocol::Result restart_supervised(std::uint32_t grace_ms);

// Beyond the grace: the SIGKILL's end and the start again.
inline constexpr std::uint32_t kAnswerAllowanceMs = 30'000;

}  // namespace liveupdate::agent
