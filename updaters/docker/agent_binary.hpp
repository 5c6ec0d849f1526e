// The lu-agent binary and its place in a container (common/agent_client/agent_binary.hpp)
// under the docker updater's names.
#pragma once

#include "common/agent_client/agent_binary.hpp"

namespace liveupdate::docker {

using agent::client::agent_archive;
using agent::client::AgentBinary;
using agent::client::load_agent_binary;

}  // namespace liveupdate::docker
