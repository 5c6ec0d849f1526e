// An update's steps through an lu-agent session, as the docker and
// kubernetes updaters both word them: the deletes and the archive's files
// (common/agent_client/agent_apply.hpp), then each run with its
// "[CMD i/n]" line and its output as lines of the update's log, then the
// restart in place where the updater does it through the agent (Tilt's order).
#pragma once

#include <chrono>
#include <functional>
#include <optional>
#include <string>

#include "common/agent_client/agent_stream.hpp"
#include "common/archive_stream.hpp"
#include "liveupdate/updater.hpp"

namespace liveupdate::updaters {

// What differs between the updaters.
struct AgentUpdateWords {
    std::string shown;               // "container web (0123456789ab)", "pod ns/web-0 container app"
    std::string run_prefix;          // before a run's failure: "executing on container 0123456789ab: "
    std::string write_refused_hint;  // after a write the container's filesystem refused (permission, read-only)
};

// A run step the agent cannot honour (docker: another user, a working
// directory...) goes to own_exec: a run failure, or nothing when it exited 0.
using OwnExecFn = std::function<std::optional<updater::Outcome>(const updater::RunStep &)>;

struct AgentUpdateSettings {
    AgentUpdateWords words;
    std::chrono::milliseconds stall{};                             // each request's progress
    std::chrono::milliseconds run_limit{};                         // each run, killed by the agent after it
    std::function<bool(const updater::RunStep &)> needs_own_exec;  // null: none does
    OwnExecFn own_exec;
    // Why the container's state explains a killed run (it stopped), else "".
    std::function<std::string()> gone_reason;
    // The restart a request asks for, after its runs, through the session
    // (kubernetes: the supervised process, in place). Null: the updater
    // restarts the container itself once the update returned (docker).
    std::function<updater::Outcome(agent_client::AgentStream &)> restart_in_place;
};

// Logs to request.log; sets run_started before the first run or the restart. archive: this
// attempt's pass over the request's archive (the request is not copied for
// it: the copy list of a large sync is large). Throws AgentSessionBroken when
// the session broke, std::runtime_error when the archive cannot be read.
updater::Outcome update_through_agent(agent_client::AgentStream &session, const updater::Request &request,
                                      const common::ArchiveReadFn &archive, const AgentUpdateSettings &settings,
                                      bool &run_started);

}  // namespace liveupdate::updaters
