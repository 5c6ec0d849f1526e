// An update's steps as lu-agent requests, over any AgentStream: deletes, then
// the archive's entries (unpacked here with libarchive into write, mkdir and
// symlink requests), pipelined, then each run with its output streamed back;
// and the digest of a tree that `lu-host verify` asks for.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "common/agent_client/agent_stream.hpp"
#include "common/agent_protocol/messages.hpp"
#include "common/archive_stream.hpp"
#include "liveupdate/updater.hpp"

namespace liveupdate::agent_client {

// The agent answered a request with an error (e.g. permission denied): the
// session is fine, the update is not.
class AgentRequestFailed : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// An update's forward guard, for an agent of kForwardGuardVersion and up
// (the caller checks): each regular file written and each path deleted goes
// with what it may replace (guard.expected; nothing for `any`). A path the
// agent left as it was (kNotAsExpected) goes to guard.kept and to `log`
// (warn); the update goes on. An empty guard: every write replaces.
struct GuardedWrites {
    updater::ForwardGuard guard;
    updater::UpdateLog log;
};

// Deletes the paths (absolute), then writes every entry of the archive under
// "/", each within the longest of sync_roots that holds it (the request's;
// agent_protocol::root_for). Every request is answered before this returns;
// the first failure is thrown as AgentRequestFailed (a guarded path kept is
// none). Throws AgentSessionBroken when the stream ends, std::runtime_error
// when the archive cannot be read.
void apply_files_through_agent(AgentStream &session, const std::vector<std::string> &deletes,
                               const common::ArchiveReadFn *archive, std::chrono::milliseconds stall,
                               const std::vector<std::string> &sync_roots, const GuardedWrites &guarded = {});

struct AgentRunResult {
    int exit_code = 0;
    bool timed_out = false;
    std::string message;  // why it could not start
};

// Runs argv; the agent kills it at `limit`. Output pieces go to on_output
// (stream 1 or 2) as they arrive.
AgentRunResult run_through_agent(AgentStream &session, const std::vector<std::string> &argv,
                                 std::chrono::milliseconds limit, std::chrono::milliseconds stall,
                                 const std::function<void(int, std::string_view)> &on_output);

// Asks the agent to restart the process `lu-agent supervise` runs in its
// container (agent_protocol::RestartProcess): SIGTERM, up to `grace`, SIGKILL,
// start again. The agent's Result: error 0 (its message names the old and new
// PIDs), agent_protocol::kNoSupervisor, or another errno value.
agent_protocol::Result restart_through_agent(AgentStream &session, std::chrono::milliseconds grace,
                                             std::chrono::milliseconds stall);

struct AgentDigestResult {
    std::int32_t error = 0;  // the agent's agent_protocol::Result: 0, or the errno of the first path it could not read
    std::string message;
    std::size_t entries = 0;  // agent_protocol::DigestEntry frames received
    bool stopped = false;     // each or keep_going asked to stop
};

// Digests request.path (absolute): each DigestEntry to each as it arrives,
// until each returns false, or keep_going (asked about every 100 ms while
// the agent is silent: hashing one large file, say) does; then it returns at
// once, leaving the session out of step (the caller ends it).
AgentDigestResult digest_through_agent(AgentStream &session, const agent_protocol::Digest &request,
                                       std::chrono::milliseconds stall,
                                       const std::function<bool(const agent_protocol::DigestEntry &)> &each,
                                       const std::function<bool()> &keep_going = {});

}  // namespace liveupdate::agent_client
