// lu-agent's digest request: every path under a folder, with its type, mode,
// size and an XXH3-64 of the content of the files asked for, without
// following symlinks, within the request's budget.
#pragma once

#include <functional>

#include "agent/frame_output.hpp"
#include "common/agent_protocol/messages.hpp"

namespace liveupdate::agent {

// Sends DigestEntry frames, then returns the Result to send. host_present:
// asked while the walk reads; false (the session's host is gone) stops it.
agent_protocol::Result digest_tree(const agent_protocol::Digest &request, FrameOutput &out,
                                   const std::function<bool()> &host_present);

}  // namespace liveupdate::agent
