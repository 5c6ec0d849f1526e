// The agent's end of OpenSocket (common/agent_protocol/messages.hpp): a
// listening unix socket in its own folder, one connection taken and its
// tokens checked, so the host reaches the agent without the engine's exec
// stream in between. Nothing else is trusted: a connection without the
// token is closed and the session stays on stdin.
#pragma once

#include "agent/frame_output.hpp"
#include "agent/fs_place.hpp"
#include "common/agent_protocol/messages.hpp"

namespace liveupdate::agent {

// Listens as asked and answers on out; then waits for the host's connection
// (up to wait_ms, or until stdin has more: the host gave up). The
// connection once both tokens were exchanged, else an UniqueFd of -1 (the session
// stays on stdin). The socket's path is gone again either way.
UniqueFd open_socket(const agent_protocol::OpenSocket &request, int stdin_fd, FrameOutput &out);

}  // namespace liveupdate::agent
