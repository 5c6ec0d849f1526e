#include "updaters/kubernetes/kubectl_updater.hpp"

#include <boost/json.hpp>
#include <optional>
#include <stdexcept>

#include "common/subprocess/run_process.hpp"
#include "updaters/kubernetes/exec_gate.hpp"
#include "updaters/shared/path_preparation.hpp"
#include "updaters/shared/update_failure.hpp"
#include "updaters/shared/update_messages.hpp"
#include "updaters/shared/updater_settings.hpp"

namespace liveupdate::kubernetes {
namespace {

namespace json = boost::json;
using updater::Outcome;
using updater::UpdateLog;
using updaters::exec_failure;

constexpr std::size_t kKept = std::size_t{64} * 1024;
constexpr std::string_view kTerminated = "command terminated with exit code ";
ExecOutcome kubectl_exec(const KubectlConfig &config, const kube::PodExecTarget &target,
                         const std::vector<std::string> &command, const kube::ExecStdinFn *input,
                         std::chrono::seconds timeout, const UpdateLog &log) {
    OutputLines lines(log);
    subprocess::RunOptions run{.argv = kubectl_exec_argv(config, target, input != nullptr, command),
                               .on_output = [&](bool is_stderr, std::string_view data) { lines.add(is_stderr, data); },
                               .timeout = std::chrono::duration_cast<std::chrono::milliseconds>(timeout)};
    if (input != nullptr) run.feed_stdin = [input](const subprocess::WriteFn &write) { (*input)(write); };
    subprocess::ProcessResult result;
    try {
        result = subprocess::run_process(run);
    } catch (const std::runtime_error &e) {
        throw updaters::InfraFailure(std::string("kubectl exec into ") + target.namespace_name + "/" + target.pod +
                                     ": " + e.what());
    }
    lines.flush();
    ExecOutcome outcome;
    outcome.output = lines.tail();
    outcome.timed_out = result.timed_out;
    outcome.exit_code = result.exit_code;
    if (result.exit_code != 0 && !result.timed_out) {
        const int remote = remote_exit_code(lines.stderr_tail());
        outcome.remote = remote >= 0;
        if (remote >= 0)
            outcome.exit_code = remote;
        else
            outcome.failure = "kubectl exec failed (exit code " + std::to_string(result.exit_code) +
                              "): " + updaters::output_tail(lines.tail());
    }
    if (result.timed_out)
        outcome.failure = "kubectl exec did not finish within " + std::to_string(timeout.count()) + "s";
    return outcome;
}

void expect_exec_ran(const ExecOutcome &o, const kube::PodExecTarget &t, std::string_view doing) {
    if (o.timed_out || !o.remote)
        throw updaters::InfraFailure(std::string(doing) + " in " + pod_text(t) + ": " + o.failure);
}

// The deletes, then room made for the archive's entries (path_preparation.hpp).
std::vector<std::vector<std::string>> preparations(const updater::Request &request,
                                                   const std::vector<updaters::PlannedPath> &entries) {
    std::vector<updaters::PlannedPath> planned;
    for (const auto &path : request.delete_paths) planned.push_back({updaters::PathChange::remove, path});
    planned.insert(planned.end(), entries.begin(), entries.end());
    return updaters::preparation_commands(planned, request.sync_roots);
}

// Runs commands[from...]; a container without sh gets rm -rf for the
// deletes, as before.
void prepare_paths(const PodExecFn &exec, const KubectlConfig &config, const kube::PodExecTarget &target,
                   const updater::Request &request, const std::vector<std::vector<std::string>> &commands,
                   std::size_t from) {
    const UpdateLog &log = request.log;
    for (std::size_t i = from; i < commands.size(); ++i) {
        const auto o = exec(target, commands[i], nullptr, config.timeout, log);
        expect_exec_ran(o, target, "deleting files");
        if (o.exit_code == updaters::kExitCannotExec || o.exit_code == updaters::kExitNotFound) {
            log(LU_LOG_WARN, pod_text(target) +
                                 " has no sh: deletes go to rm -rf, and a folder that became a file (or "
                                 "the other way round) or a symlink below a sync's path is left to tar");
            if (request.delete_paths.empty()) return;
            std::vector<std::string> rm{"rm", "-rf"};
            rm.insert(rm.end(), request.delete_paths.begin(), request.delete_paths.end());
            const auto removed = exec(target, rm, nullptr, config.timeout, log);
            expect_exec_ran(removed, target, "deleting files");
            if (removed.exit_code != 0)
                throw updaters::InfraFailure(updaters::delete_failure(removed.exit_code, removed.output));
            return;
        }
        if (o.exit_code != 0) throw updaters::InfraFailure(updaters::preparation_failure(o.exit_code, o.output));
    }
}

void expect_copied(const ExecOutcome &o, const kube::PodExecTarget &target) {
    expect_exec_ran(o, target, "copying changed files");
    if (o.exit_code != 0)
        throw updaters::InfraFailure(updaters::tar_failure(o.exit_code, o.output, "", updaters::Runtime::kubernetes));
}

// The spooled archive on a command's stdin.
kube::ExecStdinFn archive_input(const updaters::SpooledArchive &spooled) {
    return [&spooled](const kube::ExecWriteFn &write) { updaters::copy_without_implied_dirs(spooled.reader(), write); };
}

// How far the gated command took what the update writes.
struct Written {
    std::size_t prepared = 0;  // commands of preparations() done
    bool copied = false;
};

// What the update writes, its first command gated (exec_gate.hpp): the
// preparation and the copy in one command when the preparation fits one
// (at most kPathsPerPreparation paths), so all of it runs where the look
// at the pod proved; else the first preparation. nullopt: the container is
// not the one meant (the outcome, nothing written) in not_running.
std::optional<Written> gated_write(const PodExecFn &exec, const KubectlConfig &config,
                                   const kube::PodExecTarget &target, const updater::Request &request,
                                   const std::vector<std::vector<std::string>> &commands,
                                   const updaters::SpooledArchive *spooled, const GoneReasonFn &gone_reason,
                                   std::string &not_running) {
    const bool together = spooled != nullptr && commands.size() <= 1;
    const kube::ExecStdinFn input = together ? archive_input(*spooled) : kube::ExecStdinFn{};
    const GatedOutcome gated = run_gated(
        exec, target,
        together ? prepare_then_untar(commands.empty() ? std::vector<std::string>{} : commands[0]) : commands[0],
        together ? &input : nullptr, config.timeout, request.log, gone_reason);
    switch (gated.kind) {
    case GatedOutcome::Kind::refused:
        not_running = gated.gone +
                      " (the exec reaches the pod by its name: the container that answered was sent "
                      "nothing to write)";
        return std::nullopt;
    case GatedOutcome::Kind::no_shell:
        // Nothing can wait in the container: one look before, as the pod is reached by name.
        request.log(LU_LOG_WARN, pod_text(target) + " has no sh: its pod is looked at before the exec, not from it");
        not_running = gone_reason();
        if (!not_running.empty()) {
            not_running += " (the exec reaches the pod by its name: nothing was sent)";
            return std::nullopt;
        }
        return Written{};
    case GatedOutcome::Kind::ran: break;
    }
    if (!together) {
        expect_exec_ran(gated.outcome, target, "deleting files");
        if (gated.outcome.exit_code != 0)
            throw updaters::InfraFailure(updaters::preparation_failure(gated.outcome.exit_code, gated.outcome.output));
        return Written{1, false};
    }
    expect_exec_ran(gated.outcome, target, "copying changed files");
    if (gated.outcome.exit_code == kExitPreparationFailed)
        throw updaters::InfraFailure(updaters::preparation_failure(1, gated.outcome.output));
    expect_copied(gated.outcome, target);
    return Written{commands.size(), true};
}

// The exec path reaches into the pod without lu-agent (the status says so).
Outcome without_agent(Outcome outcome) {
    outcome.agent = updater::AgentSource::none;
    return outcome;
}

}  // namespace

KubectlConfig parse_kubectl_config(std::string_view text) {
    const updaters::UpdaterSettings settings(
        text, "kubernetes",
        {"exec", "kubectl", "context", "kubeconfig", "timeoutSeconds", "runTimeoutSeconds", "agent", "agentPath"});
    KubectlConfig config;
    if (auto e = settings.text("exec"); e == "kubectl")
        config.exec = KubectlConfig::Exec::kubectl;
    else if (!e.empty() && e != "api")
        throw std::invalid_argument(
            "kubernetes updater config: 'exec' must be \"api\" (the API server's exec) or \"kubectl\"");
    if (auto k = settings.text("kubectl"); !k.empty()) config.kubectl = k;
    config.context = settings.text("context");
    config.kubeconfig = settings.text("kubeconfig");
    config.timeout = settings.seconds("timeoutSeconds", config.timeout);
    config.run_timeout = settings.seconds("runTimeoutSeconds", config.run_timeout);
    config.agent = settings.flag("agent", config.agent);
    config.agent_path = settings.text("agentPath");
    return config;
}

std::vector<std::string> kubectl_exec_argv(const KubectlConfig &config, const kube::PodExecTarget &target,
                                           bool with_stdin, const std::vector<std::string> &command) {
    std::vector<std::string> argv{config.kubectl};
    if (!config.kubeconfig.empty()) argv.insert(argv.end(), {"--kubeconfig", config.kubeconfig});
    if (!config.context.empty()) argv.insert(argv.end(), {"--context", config.context});
    argv.push_back("exec");
    if (with_stdin) argv.push_back("-i");
    argv.insert(argv.end(), {"-n", target.namespace_name.empty() ? "default" : target.namespace_name, target.pod});
    if (!target.container.empty()) argv.insert(argv.end(), {"-c", target.container});
    argv.push_back("--");
    argv.insert(argv.end(), command.begin(), command.end());
    return argv;
}

int remote_exit_code(std::string_view err) {
    const auto pos = err.rfind(kTerminated);
    if (pos == std::string_view::npos) return -1;
    int code = 0;
    bool digits = false;
    for (std::size_t i = pos + kTerminated.size(); i < err.size() && err[i] >= '0' && err[i] <= '9'; ++i) {
        code = code * 10 + (err[i] - '0');
        digits = true;
    }
    return digits ? code : -1;
}

OutputLines::OutputLines(const updater::UpdateLog &log)
    : log_(log),
      out_lines_([this](std::string_view line) { log_(LU_LOG_INFO, line); }),
      err_lines_([this](std::string_view line) { log_(LU_LOG_INFO, line); }) {}

void OutputLines::add(bool is_stderr, std::string_view data) {
    kept_.append(data);
    if (kept_.size() > 2 * kKept) kept_.erase(0, kept_.size() - kKept);
    if (is_stderr) {
        err_all_.append(data);
        if (err_all_.size() > 2 * kKept) err_all_.erase(0, err_all_.size() - kKept);
    }
    (is_stderr ? err_lines_ : out_lines_).feed(data);
}

void OutputLines::flush() {
    out_lines_.flush();
    err_lines_.flush();
}

PodExecFn kubectl_exec_fn(const KubectlConfig &config) {
    return [config](const kube::PodExecTarget &target, const std::vector<std::string> &command,
                    const kube::ExecStdinFn *input, std::chrono::seconds timeout,
                    const UpdateLog &log) { return kubectl_exec(config, target, command, input, timeout, log); };
}

std::string restart_needs_supervisor(const std::string &pod_text) {
    return "Cannot restart the process of " + pod_text +
           ": Kubernetes has no in-place container restart, so the process must run under lu-agent supervise. "
           "Annotate the pod `liveupdate.dev/restart: process` (with `lu-host webhook install --mutate`, its "
           "command is wrapped at creation) or set its command to `lu-agent supervise -- CMD ARGS...`.";
}

kube::PodExecTarget exec_target_of(const updater::ContainerRef &container) {
    return {container.namespace_name, container.pod, container.name};
}

std::string pod_text(const kube::PodExecTarget &t) {
    return "pod " + t.namespace_name + "/" + t.pod + (t.container.empty() ? "" : " container " + t.container);
}

Outcome update_pod_container(const KubectlConfig &config, const updater::Request &request) {
    return update_pod_container(kubectl_exec_fn(config), config, request);
}

Outcome update_pod_container(const PodExecFn &exec, const KubectlConfig &config, const updater::Request &request,
                             const GoneReasonFn &gone_reason) {
    const UpdateLog &log = request.log;
    const kube::PodExecTarget target = exec_target_of(request.container);
    try {
        if (target.pod.empty()) throw updaters::InfraFailure("no pod to update");
        if (request.restart)
            throw updaters::InfraFailure(
                restart_needs_supervisor(pod_text(target)) +
                " The restart goes through lu-agent: the updater's exec \"api\" with agent on.");
        std::optional<updaters::SpooledArchive> spooled;
        if (!request.copies.empty()) {
            if (!request.archive) throw updaters::InfraFailure("the update names files to copy but carries no archive");
            // Spooled: what the archive holds is prepared for before tar reads it.
            spooled.emplace(request.archive);
        }
        const auto commands =
            preparations(request, spooled ? spooled->entries() : std::vector<updaters::PlannedPath>{});
        if (!request.delete_paths.empty())
            log(LU_LOG_DEBUG,
                "Deleting " + std::to_string(request.delete_paths.size()) + " path(s) in " + pod_text(target));
        Written written;
        if (gone_reason && (spooled || !commands.empty())) {
            std::string not_running;
            const auto gated = gated_write(exec, config, target, request, commands, spooled ? &*spooled : nullptr,
                                           gone_reason, not_running);
            if (!gated) return without_agent(Outcome::container_not_running(not_running));
            written = *gated;
        } else if (gone_reason) {
            // Runs only: nothing is written, the pod is looked at before them.
            if (std::string gone = gone_reason(); !gone.empty())
                return without_agent(
                    Outcome::container_not_running(gone + " (the exec reaches the pod by its name: nothing was sent)"));
        }
        prepare_paths(exec, config, target, request, commands, written.prepared);
        if (spooled && !written.copied) {
            const kube::ExecStdinFn input = archive_input(*spooled);
            expect_copied(exec(target, {"tar", "-C", "/", "-x", "-f", "-"}, &input, config.timeout, log), target);
        }
        for (std::size_t i = 0; i < request.runs.size(); ++i) {
            const auto &run = request.runs[i];
            if (!run.echo_off) log(LU_LOG_INFO, updaters::run_step_line(i, request.runs.size(), run.argv));
            if (run.argv.empty()) throw updaters::InfraFailure("run step " + std::to_string(i + 1) + " has no command");
            const auto o = exec(target, run.argv, nullptr, config.run_timeout, log);
            expect_exec_ran(o, target, "running [CMD " + std::to_string(i + 1) + "]");
            if (o.exit_code == 0) continue;
            const auto message =
                "executing on " + pod_text(target) + ": " + updaters::exec_failure(run.argv, o.exit_code);
            if (o.exit_code == updaters::kExitKilled) throw updaters::InfraFailure(message);
            return without_agent(Outcome::run_failure(o.exit_code, message));
        }
        return without_agent(Outcome::ok());
    } catch (const std::exception &e) {
        return Outcome::infra_failure(e.what());
    }
}

}  // namespace liveupdate::kubernetes
