// The docker updater's settings object:
// {"user": "...", "host": "...", "apiVersion": "...", "timeoutSeconds": N, "runTimeoutSeconds": N,
//  "agent": true, "agentPath": "..."}
#pragma once

#include <chrono>
#include <string>
#include <string_view>

namespace liveupdate::docker {

struct UpdaterConfig {
    std::string user;                       // exec user for copies, deletes and runs; empty: the image's default
    std::string host;                       // DOCKER_HOST syntax; empty: DOCKER_HOST, else the default socket
    std::string api_version;                // e.g. "1.41"; empty: negotiated with the daemon
    std::chrono::seconds timeout{30};       // each API call; a stalled copy
    std::chrono::seconds run_timeout{600};  // one exec from start to exit
    bool agent = true;                      // keep an lu-agent session per container; false: one exec per update
    std::string agent_path;                 // the lu-agent binary on this machine; empty: found beside the plugin
};

// Throws std::invalid_argument naming the offending field.
UpdaterConfig parse_updater_config(std::string_view json);

}  // namespace liveupdate::docker
