// The exec path: deletes and room for the archive through rm and sh, the
// archive through tar (or the archive API without it), runs through an exec
// each.
#include "common/line_splitter.hpp"
#include "common/mutex.hpp"
#include "updaters/docker/docker_updater.hpp"
#include "updaters/shared/implied_dirs_filter.hpp"
#include "updaters/shared/update_failure.hpp"
#include "updaters/shared/update_messages.hpp"

namespace liveupdate::docker {

using updater::Outcome;
using updater::UpdateLog;

namespace {

constexpr std::size_t kOutputKept = std::size_t{64} * 1024;

// Collects an exec's output: every line to the log, the tail kept for messages.
class OutputCollector {
public:
    OutputCollector(const UpdateLog &log, lu_log_level level)
        : out_([log, level](std::string_view line) { log(level, line); }),
          err_([log, level](std::string_view line) { log(level, line); }) {}

    docker_engine::OutputHandler handler() {
        return [this](docker_engine::OutputStream stream, std::string_view data) {
            (stream == docker_engine::OutputStream::stderr_stream ? err_ : out_).feed(data);
            kept_.append(data);
            if (kept_.size() > 2 * kOutputKept) kept_.erase(0, kept_.size() - kOutputKept);
        };
    }
    const std::string &finish() {
        out_.flush();
        err_.flush();
        return kept_;
    }

private:
    common::LineSplitter out_;
    common::LineSplitter err_;
    std::string kept_;
};

}  // namespace

void DockerUpdater::delete_paths(const Target &target, const std::vector<std::string> &paths, const UpdateLog &log) {
    docker_engine::ExecSpec spec{target.id, {"rm", "-rf"}, config_.user};
    spec.argv.insert(spec.argv.end(), paths.begin(), paths.end());
    log(LU_LOG_DEBUG, "Deleting " + std::to_string(paths.size()) + " path(s) in " + target.display());
    OutputCollector output(log, LU_LOG_INFO);
    const auto result = docker_engine::run_exec(client_, spec, nullptr, output.handler(), timeouts());
    const auto &said = output.finish();
    if (result.exit_code != 0) {
        const auto gone = container_gone_reason(target, result.exit_code == updaters::kExitKilled);
        if (!gone.empty()) throw updaters::ContainerNotRunning(gone);
        std::string message = updaters::delete_failure(result.exit_code, said);
        // As Tilt's `rm` exec failing: UpdateFailed. The archive API copies without tar but cannot delete.
        if (result.exit_code == updaters::kExitCannotExec || result.exit_code == updaters::kExitNotFound)
            message += config_.agent
                           ? " lu-agent, which deletes without `rm`, could not run in this container (see "
                             "the lines above), and the Docker archive API cannot delete."
                           : " Or enable lu-agent (\"agent\": true in the docker updater's settings), which deletes "
                             "without `rm`: the Docker archive API cannot delete.";
        throw updaters::InfraFailure(message);
    }
}

void DockerUpdater::update_through_exec(const Target &target, const updater::Request &request, const UpdateLog &log) {
    if (request.copies.empty()) {
        prepare_paths(target, request, {}, log);
        return;
    }
    if (!request.archive) throw updaters::InfraFailure("the update names files to copy but carries no archive");
    // Spooled: what the archive holds is prepared for before tar reads it.
    const updaters::SpooledArchive spooled(request.archive);
    prepare_paths(target, request, spooled.entries(), log);
    updater::Request copy = request;
    copy.archive = spooled.reader();
    copy_files(target, copy, spooled.entries(), log);
}

void DockerUpdater::prepare_paths(const Target &target, const updater::Request &request,
                                  const std::vector<updaters::PlannedPath> &entries, const UpdateLog &log) {
    std::vector<updaters::PlannedPath> planned;
    for (const auto &path : request.delete_paths) planned.push_back({updaters::PathChange::remove, path});
    planned.insert(planned.end(), entries.begin(), entries.end());
    if (planned.empty()) return;
    {
        common::MutexLock lock(probe_cache_mutex_);
        if (without_sh_.contains(target.id)) {
            if (!request.delete_paths.empty()) delete_paths(target, request.delete_paths, log);
            return;
        }
    }
    if (!request.delete_paths.empty())
        log(LU_LOG_DEBUG,
            "Deleting " + std::to_string(request.delete_paths.size()) + " path(s) in " + target.display());
    for (const auto &argv : updaters::preparation_commands(planned, request.sync_roots)) {
        const docker_engine::ExecSpec spec{target.id, argv, config_.user};
        OutputCollector output(log, LU_LOG_INFO);
        const auto result = docker_engine::run_exec(client_, spec, nullptr, output.handler(), timeouts());
        const auto &said = output.finish();
        if (result.exit_code == updaters::kExitCannotExec || result.exit_code == updaters::kExitNotFound) {
            log(LU_LOG_WARN, "Container " + target.display() +
                                 " has no sh: deletes go to rm -rf, and a folder that became a file (or the other way "
                                 "round) or a symlink in the container below a sync's path is left to tar");
            {
                common::MutexLock lock(probe_cache_mutex_);
                without_sh_.insert(target.id);
            }
            if (!request.delete_paths.empty()) delete_paths(target, request.delete_paths, log);
            return;
        }
        if (result.exit_code != 0) {
            const auto gone = container_gone_reason(target, result.exit_code == updaters::kExitKilled);
            if (!gone.empty()) throw updaters::ContainerNotRunning(gone);
            throw updaters::InfraFailure(updaters::preparation_failure(result.exit_code, said));
        }
    }
}

bool DockerUpdater::has_tar(const Target &target) {
    {
        common::MutexLock lock(probe_cache_mutex_);
        if (const auto it = has_tar_.find(target.id); it != has_tar_.end()) return it->second;
    }
    const docker_engine::ExecSpec probe{target.id, {"tar", "--help"}, config_.user};
    const auto result = docker_engine::run_exec(
        client_, probe, nullptr, [](docker_engine::OutputStream, std::string_view) {}, timeouts());
    const bool found = result.exit_code != updaters::kExitCannotExec && result.exit_code != updaters::kExitNotFound;
    common::MutexLock lock(probe_cache_mutex_);
    has_tar_[target.id] = found;
    return found;
}

void DockerUpdater::copy_files(const Target &target, const updater::Request &request,
                               const std::vector<updaters::PlannedPath> &entries, const UpdateLog &log) {
    if (!request.archive) throw updaters::InfraFailure("the update names files to copy but carries no archive");
    if (has_tar(target)) {
        copy_with_tar(target, request, log);
        return;
    }
    log(LU_LOG_WARN,
        "Container " + target.display() + " has no tar in its image: copying through the Docker archive API instead");
    copy_with_archive_api(target, request, entries, log);
    verify_copies(target, request.copies);
}

void DockerUpdater::copy_with_tar(const Target &target, const updater::Request &request, const UpdateLog &log) {
    const docker_engine::ExecSpec spec{target.id, {"tar", "-C", "/", "-x", "-f", "-"}, config_.user};
    OutputCollector output(log, LU_LOG_INFO);
    const docker_engine::StdinProducer producer = [&request](docker_engine::StdinSink &sink) {
        updaters::copy_without_implied_dirs(request.archive,
                                            [&sink](const char *data, std::size_t size) { sink.write(data, size); });
    };
    log(LU_LOG_DEBUG, "Copying " + std::to_string(request.copies.size()) + " file(s) into " + target.display());
    const auto result = docker_engine::run_exec(client_, spec, &producer, output.handler(), timeouts());
    const auto &said = output.finish();
    if (result.exit_code != 0) {
        const auto gone = container_gone_reason(target, result.exit_code == updaters::kExitKilled);
        if (!gone.empty()) throw updaters::ContainerNotRunning(gone);
        throw updaters::InfraFailure(updaters::tar_failure(result.exit_code, said, config_.user));
    }
}

Outcome DockerUpdater::run_commands(const Target &target, const std::vector<updater::RunStep> &runs,
                                    const UpdateLog &log) {
    for (std::size_t i = 0; i < runs.size(); ++i) {
        if (!runs[i].echo_off) log(LU_LOG_INFO, updaters::run_step_line(i, runs.size(), runs[i].argv));
        if (runs[i].argv.empty()) throw updaters::InfraFailure("run step " + std::to_string(i + 1) + " has no command");
        if (auto failed = run_with_exec(target, runs[i], log)) return *failed;
    }
    return {};
}

std::optional<Outcome> DockerUpdater::run_with_exec(const Target &target, const updater::RunStep &run,
                                                    const UpdateLog &log) {
    OutputCollector output(log, LU_LOG_INFO);
    const docker_engine::ExecSpec spec{target.id,       run.argv, run.user.empty() ? config_.user : run.user,
                                       run.working_dir, run.env,  run.privileged};
    const auto result = docker_engine::run_exec(client_, spec, nullptr, output.handler(), timeouts());
    output.finish();
    if (result.exit_code == 0) return std::nullopt;
    const auto gone = container_gone_reason(target, result.exit_code == updaters::kExitKilled);
    const auto message =
        "executing on container " + target.id.substr(0, 12) + ": " + updaters::exec_failure(run.argv, result.exit_code);
    if (!gone.empty()) throw updaters::ContainerNotRunning(gone + "\n" + message);
    // A SIGKILL is the runtime's doing (e.g. out of memory), not the user's command.
    if (result.exit_code == updaters::kExitKilled) throw updaters::InfraFailure(message);
    return Outcome::run_failure(result.exit_code, message);
}

}  // namespace liveupdate::docker
