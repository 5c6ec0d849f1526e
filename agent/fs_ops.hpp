// lu-agent's filesystem requests. Each returns a Result: error 0, or the
// errno and what failed, with the path.
#pragma once

#include "common/agent_protocol/messages.hpp"

namespace liveupdate::agent {

agent_protocol::Result make_dir(const agent_protocol::MakeDir &request);
agent_protocol::Result make_symlink(const agent_protocol::Symlink &request);
// expected: what the delete may remove (its ExpectContent), or null for anything.
agent_protocol::Result remove_path(const agent_protocol::Remove &request,
                                   const agent_protocol::ExpectContent *expected = nullptr);

}  // namespace liveupdate::agent
