// An update's steps as lu-agent requests: deletes, then the archive's entries
// (unpacked here with libarchive into write, mkdir and symlink requests),
// pipelined, then each run with its output streamed back.
#pragma once

#include <chrono>
#include <functional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "updaters/docker/agent_session.hpp"
#include "updaters/shared/implied_dirs_filter.hpp"

namespace liveupdate::docker {

// The agent answered a request with an error (e.g. permission denied): the
// session is fine, the update is not.
class AgentRequestFailed : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// Deletes the paths (absolute), then writes every entry of the archive under
// "/". Every request is answered before this returns; the first failure is
// thrown as AgentRequestFailed. Throws AgentSessionBroken when the stream
// ends, std::runtime_error when the archive cannot be read.
void apply_files_through_agent(AgentSession &session, const std::vector<std::string> &deletes,
                               const ArchiveReadFn *archive, std::chrono::milliseconds stall);

struct AgentRunResult {
    int exit_code = 0;
    bool timed_out = false;
    std::string message; // why it could not start
};

// Runs argv; the agent kills it at `limit`. Output pieces go to on_output
// (stream 1 or 2) as they arrive.
AgentRunResult run_through_agent(AgentSession &session, const std::vector<std::string> &argv,
                                 std::chrono::milliseconds limit, std::chrono::milliseconds stall,
                                 const std::function<void(int, std::string_view)> &on_output);

}  // namespace liveupdate::docker
