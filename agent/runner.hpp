// lu-agent's run request: the command in its own process group, its output
// streamed back as it comes, the whole group killed at the time limit.
#pragma once

#include "agent/frame_output.hpp"
#include "common/agent_protocol/messages.hpp"

namespace liveupdate::agent {

// Sends Output frames, then returns the ExitStatus to send.
agent_protocol::ExitStatus run_command(const agent_protocol::Run &request, FrameOutput &out);

}  // namespace liveupdate::agent
