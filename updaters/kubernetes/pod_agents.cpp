#include "updaters/kubernetes/pod_agents.hpp"

#include <stdexcept>

#include "common/agent_client/agent_apply.hpp"
#include "common/kube/pod_exec.hpp"
#include "updaters/shared/update_messages.hpp"

namespace liveupdate::kubernetes {
namespace {

using agent_client::AgentRequestFailed;
using agent_client::AgentSessionBroken;
using ms = std::chrono::milliseconds;

using updater::Outcome;
using updater::UpdateLog;

class InfraFailure : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

std::string pod_text(const PodContainer &t) {
    return "pod " + t.namespace_name + "/" + t.pod + (t.container.empty() ? "" : " container " + t.container);
}

kube::PodExecTarget exec_target(const PodContainer &t) { return {t.namespace_name, t.pod, t.container}; }

// A session's key: the container and its ID (a restarted container has a new one).
std::string session_key(const PodContainer &t, const std::string &container_id) {
    return t.namespace_name + "/" + t.pod + "/" + t.container + "/" + container_id;
}

std::string refusal_key(const PodContainer &t) { return t.namespace_name + "/" + t.pod + "/" + t.container; }

}  // namespace

void PodAgents::refuse(const PodContainer &target, const std::string &container_id, const std::string &why,
                       const UpdateLog &log) {
    {
        std::lock_guard lock(mutex_);
        refused_.refuse(refusal_key(target), container_id, why);
    }
    log(LU_LOG_WARN, "lu-agent cannot run in " + pod_text(target) + ": " + why +
                         "; updating it through one exec per update instead");
}

std::string PodAgents::install(const PodContainer &target, const agent_client::AgentBinary &binary) {
    const std::string archive = agent_client::agent_archive(binary);
    const kube::ExecStdinFn feed = [&archive](const kube::ExecWriteFn &write) {
        write(archive.data(), archive.size());
    };
    std::string said;
    const auto r = kube::exec_in_pod(
        api_->client(), exec_target(target), {"tar", "-x", "-f", "-", "-C", "/"}, &feed,
        [&said](bool, std::string_view d) { said.append(d); }, std::chrono::duration_cast<ms>(config_.timeout));
    if (r.exit_code == 0) return {};
    if (r.exit_code == 127)
        return "the image has no tar to copy lu-agent in with (Kubernetes has no archive API; exec is the only way in)";
    std::string why = "copying lu-agent in with tar failed";
    if (r.exit_code > 0) why += " (exit code " + std::to_string(r.exit_code) + ")";
    const auto detail = updaters::output_tail(said.empty() ? r.failure : said);
    return detail.empty() ? why : why + ": " + detail;
}

std::unique_ptr<PodAgentSession> PodAgents::start(const PodContainer &target, const std::string &container_id,
                                                  const UpdateLog &log) {
    try {
        if (!binary_) binary_ = agent_client::load_agent_binary(config_.agent_path);
    } catch (const std::runtime_error &e) {
        refuse(target, container_id, e.what(), log);
        return nullptr;
    }
    const auto timeout = std::chrono::duration_cast<ms>(config_.timeout);
    std::string why;
    for (int attempt = 0; attempt < 2; ++attempt) {
        try {
            auto session = std::make_unique<PodAgentSession>(
                api_->client(), exec_target(target), std::vector<std::string>{binary_->container_path}, timeout);
            log(LU_LOG_DEBUG, "Started " + session->description() + " in " + pod_text(target));
            return session;
        } catch (const AgentExecEnded &e) {
            why = "starting it: " + std::string(e.what());
            // Not there yet (a new container): copy it in, then start it again.
            if (e.exit_code != 127 || attempt > 0) break;
            if (const auto failed = install(target, *binary_); !failed.empty()) {
                why = failed;
                break;
            }
        } catch (const AgentSessionBroken &e) {
            why = e.what();
            break;
        }
    }
    if (why.find("exec format error") != std::string::npos)
        why += " (the container's CPU architecture is not this machine's)";
    else if (why.find("permission denied") != std::string::npos)
        why += " (a noexec mount where lu-agent lies?)";
    refuse(target, container_id, why, log);
    return nullptr;
}

std::optional<Outcome> PodAgents::update(const updater::Request &request, updaters::ReplayableArchive *archive) {
    const UpdateLog &log = request.log;
    const PodContainer target = pod_container(request.container);
    const std::string key = session_key(target, request.container.id);
    std::shared_ptr<Slot> slot;
    {
        std::lock_guard lock(mutex_);
        if (refused_.refusal(refusal_key(target), request.container.id, true)) return std::nullopt;
        // Sessions of other containers that ended (pod deleted, container restarted) go.
        for (auto it = slots_.begin(); it != slots_.end();) {
            std::unique_lock idle(it->second->mutex, std::try_to_lock);
            const bool gone =
                it->first != key && idle.owns_lock() && (!it->second->session || !it->second->session->alive());
            if (idle.owns_lock()) idle.unlock();
            it = gone ? slots_.erase(it) : std::next(it);
        }
        auto &entry = slots_[key];
        if (!entry) entry = std::make_shared<Slot>();
        slot = entry;
    }
    std::lock_guard hold(slot->mutex);
    try {
        for (int attempt = 0;; ++attempt) {
            if (slot->session && !slot->session->alive()) {
                log(LU_LOG_INFO, "The lu-agent session in " + pod_text(target) + " ended; starting a new one");
                slot->session.reset();
            }
            if (!slot->session) {
                // A refused or unreachable exec is reported by the per-update path, in its words.
                try {
                    slot->session = start(target, request.container.id, log);
                } catch (const kube::ApiError &) {
                    return std::nullopt;
                }
                if (!slot->session) return std::nullopt;
            }
            slot->session->log_stderr_to(
                [log](std::string_view line) { log(LU_LOG_INFO, "lu-agent: " + std::string(line)); });
            updater::Request replay = request;
            if (archive != nullptr) replay.archive = archive->pass();
            bool run_started = false;
            try {
                auto result = apply(*slot->session, replay, run_started);
                slot->session->log_stderr_to(nullptr);
                return result;
            } catch (const AgentSessionBroken &e) {
                slot->session.reset();
                const std::string what = "the lu-agent session in " + pod_text(target) + " broke: " + e.what();
                // Files are written whole or not at all, so sending them again is harmless; a run may have happened.
                if (run_started) throw InfraFailure(what + " (during a run: not sent again, the command may have run)");
                if (attempt > 0) throw InfraFailure(what + " (twice in a row)");
                log(LU_LOG_INFO, what + "; sending the update again through a new session");
            }
        }
    } catch (const std::exception &e) {
        if (slot->session) slot->session->log_stderr_to(nullptr);
        return Outcome::infra_failure(e.what());
    }
}

Outcome PodAgents::apply(PodAgentSession &session, const updater::Request &request, bool &run_started) {
    const UpdateLog &log = request.log;
    const PodContainer target = pod_container(request.container);
    const bool has_copies = !request.copies.empty();
    const auto stall = std::chrono::duration_cast<ms>(config_.timeout);
    if (has_copies && !request.archive) throw InfraFailure("the update names files to copy but carries no archive");
    log(LU_LOG_DEBUG, "Updating " + pod_text(target) + " through lu-agent: " +
                          std::to_string(request.delete_paths.size()) + " delete(s)" + (has_copies ? ", files" : ""));
    try {
        agent_client::apply_files_through_agent(session, request.delete_paths, has_copies ? &request.archive : nullptr,
                                                stall, request.sync_roots);
    } catch (const AgentRequestFailed &e) {
        std::string hint;
        const std::string_view said = e.what();
        if (said.find("Permission denied") != std::string_view::npos ||
            said.find("Read-only") != std::string_view::npos)
            hint =
                "\nThe container's filesystem refused the write: check that the container's user may write there "
                "and that the path is not on a read-only volume.";
        throw InfraFailure("updating " + pod_text(target) + " through lu-agent: " + e.what() + hint);
    }
    for (std::size_t i = 0; i < request.runs.size(); ++i) {
        const auto &run = request.runs[i];
        if (!run.echo_off) log(LU_LOG_INFO, updaters::run_step_line(i, request.runs.size(), run.argv));
        if (run.argv.empty()) throw InfraFailure("run step " + std::to_string(i + 1) + " has no command");
        OutputLines lines(log);
        run_started = true;
        const auto result = agent_client::run_through_agent(
            session, run.argv, std::chrono::duration_cast<ms>(config_.run_timeout), stall,
            [&lines](int stream, std::string_view data) { lines.add(stream == 2, data); });
        lines.flush();
        if (!result.message.empty()) log(LU_LOG_INFO, result.message);
        const auto prefix = "executing on " + pod_text(target) + ": ";
        if (result.timed_out)
            throw InfraFailure(prefix + updaters::command_text(run.argv) +
                               ": timed out waiting for the command to finish: the limit is " +
                               std::to_string(config_.run_timeout.count()) + "s; lu-agent killed its process group");
        if (result.exit_code == 0) continue;
        const auto message = prefix + updaters::exec_failure(run.argv, result.exit_code);
        if (result.exit_code == updaters::kExitKilled) throw InfraFailure(message);
        return Outcome::run_failure(result.exit_code, message);
    }
    return {};
}

}  // namespace liveupdate::kubernetes
