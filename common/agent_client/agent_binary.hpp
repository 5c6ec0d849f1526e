// The lu-agent executable on this machine and where it goes in a container:
// /.lu-agent/lu-agent-<protocol version>-<content hash>, so a container holding
// an older agent gets the new one beside it, never a mix.
#pragma once

#include <string>
#include <string_view>

namespace liveupdate::agent_client {

// Where `lu-host webhook` (and a container started with it mounted) puts an
// agent of its own: a read-only folder under the copies' folder, tried before
// any copy (a read-only root filesystem takes no copy).
inline constexpr std::string_view kInjectedAgentFolder = "/.lu-agent/injected";
inline constexpr std::string_view kInjectedAgentPath = "/.lu-agent/injected/lu-agent";

struct AgentBinary {
    std::string local_path;
    std::string content;
    std::string container_path;
};

// Reads `configured` when set, else lu-agent where the running lu-host's
// layout has it (common/install_layout.hpp), else beside the plugin or in
// ../bin from it.
// Throws std::runtime_error naming the places looked at and how_to_set,
// the caller's way to name another.
AgentBinary load_agent_binary(const std::string &configured,
                              std::string_view how_to_set = "set the updater's \"agentPath\"");

// A tar archive holding the agent at its container path (mode 0755), to be
// unpacked at "/" (docker: PUT /containers/{id}/archive; kubernetes: tar -x).
std::string agent_archive(const AgentBinary &binary);

}  // namespace liveupdate::agent_client
