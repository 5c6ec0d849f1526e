// lu-agent's digest request: every path under a folder, with its type, mode,
// size and an XXH3-64 of its content, without following symlinks.
#pragma once

#include "agent/frame_output.hpp"
#include "common/agent_protocol/messages.hpp"

namespace liveupdate::agent {

// Sends DigestEntry frames, then returns the Result to send.
agent_protocol::Result digest_tree(const agent_protocol::Digest &request, FrameOutput &out);

}  // namespace liveupdate::agent
