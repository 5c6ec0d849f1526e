#include "kubectl_updater.hpp"

#include <boost/json.hpp>
#include <stdexcept>

#include "child_process.hpp"
#include "update_messages.hpp"

namespace liveupdate::kubernetes {
namespace {

namespace json = boost::json;
using docker::exec_failure;

constexpr int kLogInfo = 1;
constexpr int kLogDebug = 0;
constexpr std::size_t kKept = 64 * 1024;
constexpr std::string_view kTerminated = "command terminated with exit code ";

class InfraFailure : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

std::string string_field(const json::object &o, const char *key) {
    const auto *v = o.if_contains(key);
    if (v == nullptr || v->is_null()) return {};
    if (!v->is_string()) throw std::invalid_argument(std::string("kubernetes updater config: '") + key + "' must be a string");
    return std::string(v->as_string());
}

std::chrono::seconds seconds_field(const json::object &o, const char *key, std::chrono::seconds fallback) {
    const auto *v = o.if_contains(key);
    if (v == nullptr || v->is_null()) return fallback;
    if (!v->is_int64() || v->as_int64() <= 0 || v->as_int64() > 86400)
        throw std::invalid_argument(std::string("kubernetes updater config: '") + key +
                                    "' must be a whole number of seconds between 1 and 86400");
    return std::chrono::seconds(v->as_int64());
}

// One kubectl exec: output lines to the log (kubectl's own complaint kept apart).
struct Outcome {
    int exit_code = 0;      // the remote command's, when it ran
    bool remote = true;     // false: kubectl itself failed
    bool timed_out = false;
    std::string output;     // tail of stdout and stderr
};

Outcome kubectl_exec(const KubectlConfig &config, const PodContainer &target, const std::vector<std::string> &command,
                     const docker::ArchiveReadFn *archive, std::chrono::seconds timeout, const LineLogFn &log) {
    std::string out_pending, err_pending, kept, err_all;
    const auto emit = [&log](std::string &pending, std::string_view data, bool flush) {
        pending.append(data);
        std::size_t start = 0;
        for (std::size_t nl; (nl = pending.find('\n', start)) != std::string::npos; start = nl + 1)
            log(kLogInfo, std::string_view(pending).substr(start, nl - start));
        pending.erase(0, start);
        if (flush && !pending.empty()) {
            log(kLogInfo, pending);
            pending.clear();
        }
    };
    const ProcessOutputFn on_output = [&](bool is_stderr, std::string_view data) {
        kept.append(data);
        if (kept.size() > 2 * kKept) kept.erase(0, kept.size() - kKept);
        if (is_stderr) {
            err_all.append(data);
            if (err_all.size() > 2 * kKept) err_all.erase(0, err_all.size() - kKept);
        }
        emit(is_stderr ? err_pending : out_pending, data, false);
    };
    const StdinFeeder feeder = [archive](const WriteFn &write) { docker::copy_without_implied_dirs(*archive, write); };
    const auto argv = kubectl_exec_argv(config, target, archive != nullptr, command);
    ProcessResult result;
    try {
        result = run_process(argv, archive != nullptr ? &feeder : nullptr, on_output,
                             std::chrono::duration_cast<std::chrono::milliseconds>(timeout));
    } catch (const std::runtime_error &e) {
        throw InfraFailure(std::string("kubectl exec into ") + target.namespace_name + "/" + target.pod + ": " + e.what());
    }
    emit(out_pending, "", true);
    emit(err_pending, "", true);
    Outcome outcome;
    outcome.output = kept;
    outcome.timed_out = result.timed_out;
    outcome.exit_code = result.exit_code;
    if (result.exit_code != 0 && !result.timed_out) {
        const int remote = remote_exit_code(err_all);
        outcome.remote = remote >= 0;
        if (remote >= 0) outcome.exit_code = remote;
    }
    return outcome;
}

std::string pod_text(const PodContainer &t) {
    return "pod " + t.namespace_name + "/" + t.pod + (t.container.empty() ? "" : " container " + t.container);
}

void expect_kubectl_ran(const Outcome &o, const PodContainer &t, std::string_view doing, std::chrono::seconds timeout) {
    if (o.timed_out)
        throw InfraFailure(std::string(doing) + " in " + pod_text(t) + ": kubectl exec did not finish within " +
                           std::to_string(timeout.count()) + "s");
    if (!o.remote)
        throw InfraFailure(std::string(doing) + " in " + pod_text(t) + ": kubectl exec failed (exit code " +
                           std::to_string(o.exit_code) + "): " + docker::output_tail(o.output));
}

}  // namespace

KubectlConfig parse_kubectl_config(std::string_view text) {
    KubectlConfig config;
    if (text.find_first_not_of(" \t\r\n") == std::string_view::npos) return config;
    boost::system::error_code ec;
    const auto value = json::parse(text, ec);
    if (ec || !value.is_object()) throw std::invalid_argument("kubernetes updater config: must be a JSON object");
    const auto &o = value.as_object();
    for (const auto &field : o) {
        const auto key = std::string_view(field.key());
        if (key != "kubectl" && key != "context" && key != "kubeconfig" && key != "timeoutSeconds" && key != "runTimeoutSeconds")
            throw std::invalid_argument("kubernetes updater config: unknown field '" + std::string(key) + "'");
    }
    if (auto k = string_field(o, "kubectl"); !k.empty()) config.kubectl = k;
    config.context = string_field(o, "context");
    config.kubeconfig = string_field(o, "kubeconfig");
    config.timeout = seconds_field(o, "timeoutSeconds", config.timeout);
    config.run_timeout = seconds_field(o, "runTimeoutSeconds", config.run_timeout);
    return config;
}

std::vector<std::string> kubectl_exec_argv(const KubectlConfig &config, const PodContainer &target, bool with_stdin,
                                           const std::vector<std::string> &command) {
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

PodUpdateResult update_pod_container(const KubectlConfig &config, const PodUpdate &u, const LineLogFn &log) {
    try {
        if (u.target.pod.empty()) throw InfraFailure("no pod to update");
        if (u.restart)
            throw InfraFailure("the kubernetes updater cannot restart a container: Kubernetes has no in-place restart, "
                               "so live update runs as hot reload only; drop `restart` or reload in a run command");
        if (!u.delete_paths.empty()) {
            std::vector<std::string> rm{"rm", "-rf"};
            rm.insert(rm.end(), u.delete_paths.begin(), u.delete_paths.end());
            log(kLogDebug, "Deleting " + std::to_string(u.delete_paths.size()) + " path(s) in " + pod_text(u.target));
            const auto o = kubectl_exec(config, u.target, rm, nullptr, config.timeout, log);
            expect_kubectl_ran(o, u.target, "deleting files", config.timeout);
            if (o.exit_code != 0) throw InfraFailure(docker::delete_failure(o.exit_code, o.output));
        }
        if (u.has_copies) {
            if (!u.archive) throw InfraFailure("the update names files to copy but carries no archive");
            const auto o = kubectl_exec(config, u.target, {"tar", "-C", "/", "-x", "-f", "-"}, &u.archive, config.timeout, log);
            expect_kubectl_ran(o, u.target, "copying changed files", config.timeout);
            if (o.exit_code != 0)
                throw InfraFailure(docker::tar_failure(o.exit_code, o.output, "", docker::Runtime::kubernetes));
        }
        for (std::size_t i = 0; i < u.runs.size(); ++i) {
            const auto &run = u.runs[i];
            if (!run.echo_off) {
                std::string line = "[CMD " + std::to_string(i + 1) + "/" + std::to_string(u.runs.size()) + "]";
                for (const auto &a : run.argv) line += " " + a;
                log(kLogInfo, line);
            }
            if (run.argv.empty()) throw InfraFailure("run step " + std::to_string(i + 1) + " has no command");
            const auto o = kubectl_exec(config, u.target, run.argv, nullptr, config.run_timeout, log);
            expect_kubectl_ran(o, u.target, "running [CMD " + std::to_string(i + 1) + "]", config.run_timeout);
            if (o.exit_code == 0) continue;
            const auto message = "executing on " + pod_text(u.target) + ": " + exec_failure(run.argv, o.exit_code);
            if (o.exit_code == docker::kExitKilled) throw InfraFailure(message);
            return {PodUpdateResult::Kind::run_failure, o.exit_code, message};
        }
        return {};
    } catch (const std::exception &e) {
        return {PodUpdateResult::Kind::infra_failure, 0, e.what()};
    }
}

}  // namespace liveupdate::kubernetes
