#include "updaters/shared/agent_update.hpp"

#include "common/agent_client/agent_apply.hpp"
#include "common/line_splitter.hpp"
#include "updaters/shared/update_messages.hpp"

namespace liveupdate::updaters {
namespace {

using updater::Outcome;

// A run's output, each stream as lines of the log.
class RunOutput {
public:
    explicit RunOutput(const updater::UpdateLog &log)
        : out_([log](std::string_view line) { log(LU_LOG_INFO, line); }),
          err_([log](std::string_view line) { log(LU_LOG_INFO, line); }) {}
    void add(int stream, std::string_view data) { (stream == 2 ? err_ : out_).feed(data); }
    void flush() {
        out_.flush();
        err_.flush();
    }

private:
    common::LineSplitter out_;
    common::LineSplitter err_;
};

// The request's forward guard where the session's agent can compare before it
// replaces; else none, and the first such update of the session says so.
agent_client::GuardedWrites guarded_writes(agent_client::AgentStream &session, const updater::Request &request,
                                           const AgentUpdateWords &words) {
    if (!request.guard) return {};
    const std::uint32_t version = session.protocol_version();
    if (version >= agent_protocol::kForwardGuardVersion) return {request.guard, request.log};
    if (session.take_unguarded_notice())
        request.log(LU_LOG_INFO, "Forward writes to " + words.shown + " are unguarded: its lu-agent speaks protocol " +
                                     std::to_string(version) + ", which cannot compare a file before replacing it (" +
                                     std::to_string(agent_protocol::kForwardGuardVersion) +
                                     " can), so an app change that sync back has not judged yet may be overwritten");
    return {};
}

std::optional<Outcome> apply_files(agent_client::AgentStream &session, const updater::Request &request,
                                   const common::ArchiveReadFn &archive, const AgentUpdateSettings &settings) {
    const auto &words = settings.words;
    if (!request.copies.empty() && !archive)
        return Outcome::infra_failure("the update names files to copy but carries no archive");
    request.log(LU_LOG_DEBUG, "Updating " + words.shown +
                                  " through lu-agent: " + std::to_string(request.delete_paths.size()) + " delete(s), " +
                                  std::to_string(request.copies.size()) + " file(s)");
    try {
        agent_client::apply_files_through_agent(session, request.delete_paths,
                                                request.copies.empty() ? nullptr : &archive, settings.stall,
                                                request.sync_roots, guarded_writes(session, request, words));
    } catch (const agent_client::AgentRequestFailed &e) {
        std::string hint;
        const std::string_view said = e.what();
        if (said.find("Permission denied") != std::string_view::npos ||
            said.find("Read-only") != std::string_view::npos)
            hint = "\n" + words.write_refused_hint;
        return Outcome::infra_failure("updating " + words.shown + " through lu-agent: " + e.what() + hint);
    }
    return std::nullopt;
}

}  // namespace

Outcome update_through_agent(agent_client::AgentStream &session, const updater::Request &request,
                             const common::ArchiveReadFn &archive, const AgentUpdateSettings &settings,
                             bool &run_started) {
    const updater::UpdateLog &log = request.log;
    if (auto failed = apply_files(session, request, archive, settings)) return *failed;
    for (std::size_t i = 0; i < request.runs.size(); ++i) {
        const auto &run = request.runs[i];
        if (!run.echo_off) log(LU_LOG_INFO, run_step_line(i, request.runs.size(), run.argv));
        if (run.argv.empty()) return Outcome::infra_failure("run step " + std::to_string(i + 1) + " has no command");
        run_started = true;
        if (settings.needs_own_exec && settings.needs_own_exec(run)) {
            if (auto failed = settings.own_exec(run)) return *failed;
            continue;
        }
        RunOutput output(log);
        const auto result =
            agent_client::run_through_agent(session, run.argv, settings.run_limit, settings.stall,
                                            [&output](int stream, std::string_view data) { output.add(stream, data); });
        output.flush();
        if (!result.message.empty()) log(LU_LOG_INFO, result.message);
        if (result.timed_out)
            return Outcome::infra_failure(
                settings.words.run_prefix + command_text(run.argv) +
                ": timed out waiting for the command to finish: the limit is " +
                std::to_string(std::chrono::duration_cast<std::chrono::seconds>(settings.run_limit).count()) +
                "s; lu-agent killed its process group");
        if (result.exit_code == 0) continue;
        const auto message = settings.words.run_prefix + exec_failure(run.argv, result.exit_code);
        // A SIGKILL is the runtime's doing (e.g. out of memory), not the user's command.
        if (result.exit_code == kExitKilled) {
            const auto gone = settings.gone_reason ? settings.gone_reason() : std::string();
            if (gone.empty()) return Outcome::infra_failure(message);
            // It stopped: not running, as one stopped before the update (C07).
            return Outcome::container_not_running(std::string(gone).append("\n").append(message));
        }
        return Outcome::run_failure(result.exit_code, message);
    }
    if (request.restart && settings.restart_in_place) {
        run_started = true;  // a session broken meanwhile does not send the update, nor the restart, again
        return settings.restart_in_place(session);
    }
    return {};
}

}  // namespace liveupdate::updaters
