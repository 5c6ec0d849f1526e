// lu-agent's filesystem requests. Each returns a Result: error 0, or the
// errno and what failed, with the path.
#pragma once

#include "common/agent_protocol/messages.hpp"

namespace liveupdate::agent {

agent_protocol::Result make_dir(const agent_protocol::MakeDir &request);
agent_protocol::Result make_symlink(const agent_protocol::Symlink &request);
agent_protocol::Result remove_path(const agent_protocol::Remove &request);

}  // namespace liveupdate::agent
