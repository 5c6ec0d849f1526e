// The shared lu-agent client (common/agent_client/agent_apply.hpp) under the docker
// updater's names.
#pragma once

#include "common/agent_client/agent_apply.hpp"
#include "updaters/docker/agent_session.hpp"

namespace liveupdate::docker {

using agent::client::AgentDigestResult;
using agent::client::AgentRequestFailed;
using agent::client::AgentRunResult;
using agent::client::apply_files_through_agent;
using agent::client::digest_through_agent;
using agent::client::run_through_agent;

}  // namespace liveupdate::docker
