#include "updaters/kubernetes/pod_agents.hpp"

#include "common/agent_client/agent_apply.hpp"
#include "common/kube/pod_exec.hpp"
#include "updaters/kubernetes/agent_start_failure.hpp"
#include "updaters/kubernetes/pod_agent_transport.hpp"
#include "updaters/kubernetes/pod_state.hpp"
#include "updaters/shared/agent_update.hpp"
#include "updaters/shared/change_watch_entry.hpp"
#include "updaters/shared/update_messages.hpp"

namespace liveupdate::kubernetes {
namespace {

using ms = std::chrono::milliseconds;

// Beyond the grace: the process's start again, and the exec stream's delay.
constexpr ms kRestartAllowance{30'000};

using updater::Outcome;
using updater::UpdateLog;

// A pod's container as the agent driver reaches it: through the API server's exec.
class PodAgentContainer final : public agent_client::AgentTarget {
public:
    PodAgentContainer(const KubectlConfig &config, ApiExec &api, const updater::ContainerRef &container)
        : config_(config), api_(api), target_(exec_target_of(container)), container_(container) {}

    // Sessions are by the container and its ID (a restarted container has a
    // new one), refusals by the container for one ID.
    agent_client::AgentPlace place() const override {
        const std::string container = target_.namespace_name + "/" + target_.pod + "/" + target_.container;
        return {container + "/" + container_.id, container, container_.id, pod_text(target_)};
    }

    // An exec tells whether it is there (a pod's spec may not say: the webhook's patch is one way among others).
    std::string injected_agent() override { return std::string(agent_client::kInjectedAgentPath); }

    std::string install(const agent_client::AgentBinary &binary) override;

    std::unique_ptr<agent_client::AgentTransport> open(const std::string &command) override;

    // An exec reaches a pod by its name: a pod deleted and made again under
    // it answers for a container the update is not meant for (and the
    // journal of the one it is meant for would record what it got).
    void confirm_started() override {
        if (std::string gone = container_gone_reason(api_, container_); !gone.empty())
            throw agent_client::AgentInAnotherContainer(
                gone + " (lu-agent's exec reaches the pod by its name: nothing was sent)");
    }

    bool lasting_refusal(std::string &why, int exit_code, const UpdateLog &) override {
        if (why.find("exec format error") != std::string::npos)
            why += " (the container's CPU architecture is not this machine's)";
        else if (why.find("permission denied") != std::string::npos)
            why += " (a noexec mount where lu-agent lies?)";
        if (copy_failure_) return lasting_agent_refusal(*copy_failure_);
        return lasting_agent_refusal({AgentStartFailure::Step::start, exit_code, start_refused_, why});
    }

    const kube::PodExecTarget &target() const { return target_; }

private:
    const KubectlConfig &config_;
    ApiExec &api_;
    kube::PodExecTarget target_;
    updater::ContainerRef container_;
    std::optional<AgentStartFailure> copy_failure_;  // the last copy's, when it failed
    long start_refused_ = 0;                         // the API server's status when it refused the agent's exec
};

std::unique_ptr<agent_client::AgentTransport> PodAgentContainer::open(const std::string &command) {
    try {
        return std::make_unique<PodAgentTransport>(api_.client(), target_, std::vector{command},
                                                   std::chrono::duration_cast<ms>(config_.timeout));
    } catch (const kube::PodExecError &e) {
        // Forbidden lasts (lasting_agent_refusal); any other refusal is the caller's failure as it was.
        if (e.status != 403) throw;
        start_refused_ = e.status;
        throw agent_client::AgentSessionBroken(std::string(e.what()) +
                                               " (the user needs the RBAC permission to create pods/exec here)");
    }
}

std::string PodAgentContainer::install(const agent_client::AgentBinary &binary) {
    const std::string archive = agent_client::agent_archive(binary);
    const kube::ExecStdinFn feed = [&archive](const kube::ExecWriteFn &write) {
        write(archive.data(), archive.size());
    };
    std::string said;
    copy_failure_.reset();
    kube::PodExecResult r;
    try {
        r = kube::exec_in_pod(
            api_.client(), target_, {"tar", "-x", "-f", "-", "-C", "/"}, &feed,
            [&said](bool, std::string_view d) { said.append(d); }, std::chrono::duration_cast<ms>(config_.timeout));
    } catch (const kube::PodExecError &e) {
        if (e.status != 403) throw;  // as open(): only a forbidden exec lasts
        copy_failure_ = AgentStartFailure{AgentStartFailure::Step::copy, -1, e.status, e.what()};
        return "copying lu-agent in: " + std::string(e.what());
    }
    if (r.exit_code == 0) return {};
    copy_failure_ = AgentStartFailure{AgentStartFailure::Step::copy, r.exit_code, 0, said.empty() ? r.failure : said};
    if (r.exit_code == 127)
        return "the image has no tar to copy lu-agent in with (Kubernetes has no archive API; exec is the only way in)";
    std::string why = "copying lu-agent in with tar failed";
    if (r.exit_code > 0) why += " (exit code " + std::to_string(r.exit_code) + ")";
    const auto detail = updaters::output_tail(copy_failure_->said);
    return detail.empty() ? why : why + ": " + detail;
}

// How long a process asked to end may take before its SIGKILL. Docker's
// restart here gives none (t=0); a server closing its connections gets a moment.
constexpr ms kRestartGrace{5000};

// The supervised process restarted in place: the container, and so restartCount, stays.
Outcome restart_in_place(agent_client::AgentStream &session, const updater::Request &request,
                         const std::string &shown) {
    request.log(LU_LOG_INFO, "Restarting the process of " + shown + " in place (lu-agent supervise)");
    const auto result = agent_client::restart_through_agent(session, kRestartGrace, kRestartAllowance);
    if (result.error == 0) {
        request.log(LU_LOG_INFO, "Restarted the process of " + shown + " in place: " + result.message);
        Outcome restarted;
        restarted.process_restarted = true;
        return restarted;
    }
    if (result.error == agent_protocol::kNoSupervisor)
        return Outcome::infra_failure(kubernetes::restart_needs_supervisor(shown) + " (lu-agent: " + result.message +
                                      ")");
    return Outcome::infra_failure("restarting the process of " + shown + " in place: " + result.message);
}

}  // namespace

PodAgents::PodAgents(const KubectlConfig &config, std::shared_ptr<ApiExec> api)
    : config_(config),
      api_(std::move(api)),
      driver_(config_.agent_path, std::chrono::duration_cast<ms>(config_.timeout)) {}

std::optional<Outcome> PodAgents::update(const updater::Request &request, updaters::ReplayableArchive *archive) {
    PodAgentContainer container(config_, *api_, request.container);
    const std::string shown = pod_text(container.target());
    const updaters::AgentUpdateSettings settings{
        {shown, "executing on " + shown + ": ",
         "The container's filesystem refused the write: check that the container's user may write there and that "
         "the path is not on a read-only volume."},
        std::chrono::duration_cast<ms>(config_.timeout),
        std::chrono::duration_cast<ms>(config_.run_timeout),
        nullptr,
        nullptr,
        nullptr,
        [&](agent_client::AgentStream &session) { return restart_in_place(session, request, shown); }};
    try {
        return driver_.update(container, request.log, [&](agent_client::AgentStream &session, bool &run_started) {
            const common::ArchiveReadFn pass = archive != nullptr ? archive->pass() : request.archive;
            return updaters::update_through_agent(session, request, pass, settings, run_started);
        });
    } catch (const kube::ApiError &) {
        return std::nullopt;  // a refused or unreachable exec is reported by the per-update path, in its words
    } catch (const agent_client::AgentInAnotherContainer &e) {
        return Outcome::container_not_running(e.what());  // the container meant is gone (C07)
    } catch (const std::exception &e) {
        return Outcome::infra_failure(e.what());
    }
}

// The first save then costs what the next ones do, not the agent's copy and start.
void PodAgents::prepare(const updater::ContainerRef &container, const UpdateLog &log) {
    if (container.pod.empty()) return;
    PodAgentContainer agent_container(config_, *api_, container);
    driver_.prepare(agent_container, log);
}

agent_client::DigestOutcome PodAgents::digest(const updater::ContainerRef &container,
                                              const agent_protocol::Digest &request,
                                              const agent_client::DigestEntryFn &each, const UpdateLog &log,
                                              const std::function<bool()> &keep_going) {
    using agent_client::DigestOutcome;
    const auto failed = [](std::string message) {
        return DigestOutcome{DigestOutcome::Kind::failed, std::move(message)};
    };
    if (container.pod.empty()) return failed("no pod to digest " + request.path + " in");
    if (const auto problem = agent_protocol::path_problem(request.path); !problem.empty())
        return failed("cannot digest " + request.path + ": " + problem);
    PodAgentContainer agent_container(config_, *api_, container);
    try {
        DigestOutcome outcome = driver_.digest(agent_container, request, each, log, keep_going);
        if (outcome.kind == DigestOutcome::Kind::failed || outcome.kind == DigestOutcome::Kind::stopped) return outcome;
        // An exec reaches a pod by its name: a pod deleted and made again under
        // that name answered for a container the host does not mean, and one
        // gone made the agent look unable to run; either would be misread.
        if (std::string gone = container_gone_reason(*api_, container); !gone.empty())
            return failed(gone + ": the digest of " + request.path + " tells nothing of the container meant");
        return outcome;
    } catch (const agent_client::AgentInAnotherContainer &e) {
        return failed(e.what() + std::string(": the digest of ") + request.path + " was not asked");
    } catch (const std::exception &e) {
        std::string why = "digesting " + request.path + " in " + pod_text(agent_container.target()) + ": " + e.what();
        // The exec refused for a pod gone says so in the API server's words; the user's are these.
        if (std::string gone = container_gone_reason(*api_, container); !gone.empty()) why = gone + "\n" + why;
        return failed(why);
    }
}

std::unique_ptr<agent_client::AgentSession> PodAgents::watch_session(const updater::ContainerRef &container,
                                                                     const UpdateLog &log) {
    if (container.pod.empty()) throw updaters::WatchUnsupported("no pod to watch");
    PodAgentContainer agent_container(config_, *api_, container);
    auto session = driver_.open_session(agent_container, log);
    if (!session)
        throw updaters::WatchUnsupported("lu-agent cannot run in " + pod_text(agent_container.target()) +
                                         " (the log says why): its files do not come back");
    return session;
}

}  // namespace liveupdate::kubernetes
