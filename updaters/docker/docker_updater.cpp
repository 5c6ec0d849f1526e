#include "updaters/docker/docker_updater.hpp"

#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <boost/json.hpp>
#include <cerrno>
#include <cstring>
#include <exception>
#include <stdexcept>
#include <thread>

#include "common/agent_client/agent_apply.hpp"
#include "common/docker_engine/frame_demuxer.hpp"
#include "common/json_fields.hpp"
#include "common/line_splitter.hpp"
#include "updaters/docker/tar_file_reader.hpp"
#include "updaters/shared/implied_dirs_filter.hpp"
#include "updaters/shared/replayable_archive.hpp"
#include "updaters/shared/update_messages.hpp"

namespace liveupdate::docker {

struct DockerUpdater::Target {
    std::string id;
    std::string name;
    std::string started_at;  // State.StartedAt: which start of the container this is
    std::string display() const { return name + " (" + id.substr(0, 12) + ")"; }
};

using updater::Outcome;
using updater::UpdateLog;

namespace {

// A failure already worded for the user.
class InfraFailure : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// Found paused before anything changed in it: the update is due again once it runs.
class ContainerPaused : public InfraFailure {
public:
    using InfraFailure::InfraFailure;
};

constexpr std::size_t kOutputKept = std::size_t{64} * 1024;
constexpr std::size_t kVerifyProblemsShown = 20;

boost::json::object parse_object(const std::string &body, std::string_view what) {
    boost::system::error_code ec;
    auto value = boost::json::parse(body, ec);
    if (ec || !value.is_object()) throw InfraFailure(std::string(what) + ": the daemon's answer is not a JSON object");
    return std::move(value.as_object());
}

// "status: exited, exit code 137" from an inspect's State.
std::string state_text(const boost::json::object &state) {
    std::string text = "status: " + common::text_at(state, "Status");
    const auto *code = state.if_contains("ExitCode");
    if (common::text_at(state, "Status") == "exited" && code != nullptr && code->is_int64())
        text += ", exit code " + std::to_string(code->as_int64());
    return text;
}

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

std::string decode_base64(std::string_view text) {
    static constexpr std::string_view kAlphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    std::string out;
    unsigned buffer = 0;
    int bits = 0;
    for (const char c : text) {
        const auto pos = kAlphabet.find(c);
        if (pos == std::string_view::npos) continue;  // padding and line breaks
        buffer = (buffer << 6) | static_cast<unsigned>(pos);
        bits += 6;
        if (bits >= 8) {
            bits -= 8;
            out += static_cast<char>((buffer >> bits) & 0xFF);
        }
    }
    return out;
}

}  // namespace

namespace {

// The agent's stderr as lines of the update in progress's log.
AgentSession::LineFn agent_stderr_to(const UpdateLog &log) {
    return [log](std::string_view line) { log(LU_LOG_INFO, "lu-agent: " + std::string(line)); };
}

// A session outlives each update or digest: when one ends, the session's
// stderr stops going to its log.
template <class Slot>
class EndOfUse {
public:
    explicit EndOfUse(Slot &slot) : slot_(slot) {}
    EndOfUse(const EndOfUse &) = delete;
    EndOfUse &operator=(const EndOfUse &) = delete;
    ~EndOfUse() {
        if (slot_.session) slot_.session->route_stderr(nullptr);
    }

private:
    Slot &slot_;
};

docker_engine::Endpoint endpoint_or_error(const std::string &configured, std::string &error) {
    if (!configured.empty()) return docker_engine::parse_docker_host(configured);  // a bad setting is refused at create
    try {
        return docker_engine::resolve_endpoint("");
    } catch (const std::invalid_argument &e) {
        error = std::string("DOCKER_HOST: ") + e.what();
        return docker_engine::parse_docker_host(docker_engine::kDefaultDockerHost);
    }
}

}  // namespace

bool needs_own_exec(const updater::RunStep &run) {
    return !run.user.empty() || !run.working_dir.empty() || !run.env.empty() || run.privileged;
}

DockerUpdater::DockerUpdater(UpdaterConfig config)
    : config_(std::move(config)),
      client_holder_(std::make_unique<docker_engine::EngineClient>(
          endpoint_or_error(config_.host, endpoint_error_), config_.api_version,
          std::chrono::duration_cast<std::chrono::milliseconds>(config_.timeout))),
      client_(*client_holder_) {}

docker_engine::ExecTimeouts DockerUpdater::timeouts() const {
    return {std::chrono::duration_cast<std::chrono::milliseconds>(config_.timeout),
            std::chrono::duration_cast<std::chrono::milliseconds>(config_.run_timeout)};
}

Outcome DockerUpdater::update(const updater::Request &original) {
    const UpdateLog &log = original.log;
    const updater::ContainerRef &container = original.container;
    Target target{container.id, container.name.empty() ? container.id : container.name, {}};
    const auto infra = [&](const std::string &what) {
        const auto gone = container_gone_reason(target, true);
        return Outcome::infra_failure(gone.empty() ? what : gone + "\n" + what);
    };
    try {
        if (!endpoint_error_.empty()) throw InfraFailure(endpoint_error_);
        if (container.id.empty()) throw InfraFailure("no container ID to update");
        target = inspect_target(container);
        // The agent may need to send the archive again, or hand it to the exec
        // path after failing to start: each pass starts it again from the source.
        std::optional<updaters::ReplayableArchive> replayable;
        if (config_.agent && !original.copies.empty() && original.archive)
            replayable.emplace(original.archive, original.archive_rewind);
        if (config_.agent)
            if (auto result = update_through_agent(target, original, replayable ? &*replayable : nullptr, log))
                return *result;
        // Copied only for the exec path: the copy list of a large sync is large.
        std::optional<updater::Request> replay;
        if (replayable) {
            replay = original;
            replay->archive = replayable->pass();
        }
        const updater::Request &request = replay ? *replay : original;
        update_through_exec(target, request, log);
        auto result = run_commands(target, request.runs, log);
        if (result.kind != Outcome::Kind::ok) return result;
        if (request.restart)
            restart(target, log);
        else
            log(LU_LOG_DEBUG, "Hot reload on, skipping container restart: " + target.display());
        return {};
    } catch (const ContainerPaused &e) {
        return Outcome::container_not_running(e.what());
    } catch (const InfraFailure &e) {
        return Outcome::infra_failure(e.what());
    } catch (const docker_engine::EngineError &e) {
        if (e.failure() == docker_engine::EngineFailure::unreachable ||
            e.failure() == docker_engine::EngineFailure::permission_denied)
            return Outcome::infra_failure(e.what());
        // Paused after inspect_target: the engine refuses the exec (409), as a pause seen there.
        if (e.failure() == docker_engine::EngineFailure::conflict && is_paused(target))
            return Outcome::container_not_running("container " + target.display() +
                                                  " was paused during the update: unpause it to live update (" +
                                                  e.what() + ")");
        return infra("updating container " + target.display() + ": " + e.what());
    } catch (const std::exception &e) {
        return infra("updating container " + target.display() + ": " + e.what());
    }
}

DockerUpdater::Target DockerUpdater::inspect_target(const updater::ContainerRef &container) {
    const std::string path = "/containers/" + container.id + "/json";
    const auto response = client_.get(path);
    const std::string shown =
        container.name.empty() ? container.id.substr(0, 12) : container.name + " (" + container.id.substr(0, 12) + ")";
    if (response.status == 404)
        throw InfraFailure("container " + shown + " no longer exists: it was removed or recreated");
    docker_engine::EngineClient::expect_success(response, "GET " + path);
    const auto object = parse_object(response.body, "GET " + path);
    Target target{common::text_at(object, "Id"), container.name, {}};
    if (target.id.empty()) target.id = container.id;
    if (target.name.empty()) {
        target.name = common::text_at(object, "Name");
        if (target.name.starts_with("/")) target.name.erase(0, 1);
    }
    const auto *state = object.if_contains("State");
    if (state == nullptr || !state->is_object()) throw InfraFailure("GET " + path + ": no State in the answer");
    const auto &s = state->as_object();
    target.started_at = common::text_at(s, "StartedAt");
    if (common::flag_at(s, "Paused"))
        throw ContainerPaused("container " + target.display() + " is paused: unpause it to live update");
    if (!common::flag_at(s, "Running") || common::flag_at(s, "Restarting"))
        throw InfraFailure("container " + target.display() + " is not running (" + state_text(s) + ")");
    return target;
}

std::string DockerUpdater::container_gone_reason(const Target &target, bool killed) {
    if (target.id.empty()) return {};
    // A kill ends the exec a moment before the daemon marks the container exited.
    const int attempts = killed ? 20 : 1;
    for (int attempt = 0; attempt < attempts; ++attempt) {
        if (attempt > 0) std::this_thread::sleep_for(std::chrono::milliseconds(100));
        try {
            const auto response = client_.get("/containers/" + target.id + "/json");
            if (response.status == 404) return "container " + target.display() + " was removed during the update";
            if (response.status != 200) return {};
            const auto object = parse_object(response.body, "inspect");
            const auto *state = object.if_contains("State");
            if (state == nullptr || !state->is_object()) return {};
            const auto &s = state->as_object();
            if (!common::flag_at(s, "Running") || common::flag_at(s, "Restarting"))
                return "container " + target.display() + " stopped during the update (" + state_text(s) + ")";
        } catch (const std::exception &) {
            return {};  // the original failure says enough
        }
    }
    return {};
}

void DockerUpdater::delete_paths(const Target &target, const std::vector<std::string> &paths, const UpdateLog &log) {
    docker_engine::ExecSpec spec{target.id, {"rm", "-rf"}, config_.user};
    spec.argv.insert(spec.argv.end(), paths.begin(), paths.end());
    log(LU_LOG_DEBUG, "Deleting " + std::to_string(paths.size()) + " path(s) in " + target.display());
    OutputCollector output(log, LU_LOG_INFO);
    const auto result = docker_engine::run_exec(client_, spec, nullptr, output.handler(), timeouts());
    const auto &said = output.finish();
    if (result.exit_code != 0) {
        const auto gone = container_gone_reason(target, result.exit_code == updaters::kExitKilled);
        if (!gone.empty()) throw InfraFailure(gone);
        std::string message = updaters::delete_failure(result.exit_code, said);
        // As Tilt's `rm` exec failing: UpdateFailed. The archive API copies without tar but cannot delete.
        if (result.exit_code == updaters::kExitCannotExec || result.exit_code == updaters::kExitNotFound)
            message += config_.agent
                           ? " lu-agent, which deletes without `rm`, could not run in this container (see "
                             "the lines above), and the Docker archive API cannot delete."
                           : " Or enable lu-agent (\"agent\": true in the docker updater's settings), which deletes "
                             "without `rm`: the Docker archive API cannot delete.";
        throw InfraFailure(message);
    }
}

void DockerUpdater::update_through_exec(const Target &target, const updater::Request &request, const UpdateLog &log) {
    if (request.copies.empty()) {
        prepare_paths(target, request, {}, log);
        return;
    }
    if (!request.archive) throw InfraFailure("the update names files to copy but carries no archive");
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
        std::lock_guard lock(probe_cache_mutex_);
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
                std::lock_guard lock(probe_cache_mutex_);
                without_sh_.insert(target.id);
            }
            if (!request.delete_paths.empty()) delete_paths(target, request.delete_paths, log);
            return;
        }
        if (result.exit_code != 0) {
            const auto gone = container_gone_reason(target, result.exit_code == updaters::kExitKilled);
            throw InfraFailure(gone.empty() ? updaters::preparation_failure(result.exit_code, said) : gone);
        }
    }
}

bool DockerUpdater::has_tar(const Target &target) {
    {
        std::lock_guard lock(probe_cache_mutex_);
        if (const auto it = has_tar_.find(target.id); it != has_tar_.end()) return it->second;
    }
    const docker_engine::ExecSpec probe{target.id, {"tar", "--help"}, config_.user};
    const auto result = docker_engine::run_exec(
        client_, probe, nullptr, [](docker_engine::OutputStream, std::string_view) {}, timeouts());
    const bool found = result.exit_code != updaters::kExitCannotExec && result.exit_code != updaters::kExitNotFound;
    std::lock_guard lock(probe_cache_mutex_);
    has_tar_[target.id] = found;
    return found;
}

void DockerUpdater::copy_files(const Target &target, const updater::Request &request,
                               const std::vector<updaters::PlannedPath> &entries, const UpdateLog &log) {
    if (!request.archive) throw InfraFailure("the update names files to copy but carries no archive");
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
        throw InfraFailure(gone.empty() ? updaters::tar_failure(result.exit_code, said, config_.user) : gone);
    }
}

std::string DockerUpdater::container_file(const Target &target, const std::string &path) {
    const auto response =
        client_.get("/containers/" + target.id + "/archive?path=" + docker_engine::EngineClient::query_escape(path));
    if (response.status == 404) return {};
    try {
        docker_engine::EngineClient::expect_success(response,
                                                    "GET /containers/" + target.id.substr(0, 12) + "/archive");
        return first_file_in_tar(response.body).value_or(std::string());
    } catch (const std::exception &e) {
        throw InfraFailure("reading " + path + " from " + target.display() + ": " + e.what());
    }
}

std::optional<updaters::Owner> DockerUpdater::owner_in(const Target &target) {
    if (config_.user.empty()) return std::nullopt;
    {
        std::lock_guard lock(probe_cache_mutex_);
        if (const auto it = owner_.find(target.id); it != owner_.end()) return it->second;
    }
    updaters::Owner owner;
    try {
        owner = updaters::resolve_owner(config_.user, container_file(target, "/etc/passwd"),
                                        container_file(target, "/etc/group"));
    } catch (const std::invalid_argument &e) {
        throw InfraFailure("the docker updater's \"user\" setting cannot be applied in " + target.display() + ": " +
                           e.what());
    }
    std::lock_guard lock(probe_cache_mutex_);
    owner_[target.id] = owner;
    return owner;
}

ContainerPathKind DockerUpdater::container_path_kind(const Target &target, const std::string &path) {
    const auto response =
        client_.head("/containers/" + target.id + "/archive?path=" + docker_engine::EngineClient::query_escape(path));
    if (response.status == 404) return ContainerPathKind::missing;
    docker_engine::EngineClient::expect_success(response, "HEAD /containers/" + target.id.substr(0, 12) + "/archive");
    boost::system::error_code ec;
    const auto stat_json = boost::json::parse(decode_base64(response.header("x-docker-container-path-stat")), ec);
    const auto *mode = ec || !stat_json.is_object() ? nullptr : stat_json.as_object().if_contains("mode");
    if (mode == nullptr || !mode->is_number())
        throw InfraFailure("the daemon gave no mode for " + path + " in " + target.display() +
                           ": without it a symlink there cannot be told from a folder");
    // Go's os.FileMode: ModeDir is bit 31 (ModeSymlink, bit 27, and a file are "other").
    constexpr std::uint64_t kGoModeDir = std::uint64_t{1} << 31;
    return (mode->to_number<std::uint64_t>() & kGoModeDir) != 0 ? ContainerPathKind::folder : ContainerPathKind::other;
}

void DockerUpdater::copy_with_archive_api(const Target &target, const updater::Request &request,
                                          const std::vector<updaters::PlannedPath> &entries, const UpdateLog &log) {
    // The engine writes through a symlink on the way: below a sync's path a
    // symlink or a file where a folder comes is replaced by the folder instead.
    const std::set<std::string> explicit_folders = folders_to_make_explicit(
        entries, request.sync_roots, [&](const std::string &path) { return container_path_kind(target, path); });
    for (const auto &folder : explicit_folders)
        log(LU_LOG_DEBUG, "/" + folder + " in " + target.display() + " is not a folder: replacing it by one");
    // Docker extracts as root, keeping the archive's numeric owner: the entries
    // carry the configured user's, as tar running as that user would leave them.
    const std::optional<updaters::Owner> owner = owner_in(target);
    // libarchive pushes the filtered archive, curl pulls the request body: a
    // socket pair between a producer thread and curl's read callback.
    int fds[2];
    if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) != 0)
        throw InfraFailure(std::string("socketpair failed: ") + std::strerror(errno));
    std::exception_ptr producer_error;
    std::thread producer([&request, &producer_error, &explicit_folders, owner, fd = fds[1]] {
        try {
            updaters::copy_without_implied_dirs(
                request.archive,
                [fd](const char *data, std::size_t size) {
                    while (size > 0) {
                        const auto sent = ::send(fd, data, size, MSG_NOSIGNAL);
                        if (sent < 0 && errno == EINTR) continue;
                        if (sent < 0)
                            throw std::runtime_error(std::string("streaming the archive: ") + std::strerror(errno));
                        data += sent;
                        size -= static_cast<std::size_t>(sent);
                    }
                },
                owner, {}, explicit_folders);
        } catch (...) {
            producer_error = std::current_exception();
        }
        ::close(fd);
    });
    docker_engine::EngineResponse response;
    std::exception_ptr request_error;
    try {
        const docker_engine::BodyReader reader = [fd = fds[0]](char *buffer, std::size_t capacity) -> std::int64_t {
            for (;;) {
                const auto got = ::recv(fd, buffer, capacity, 0);
                if (got >= 0) return got;
                if (errno != EINTR) return -1;
            }
        };
        const std::string path = "/containers/" + target.id + "/archive?path=%2F";
        log(LU_LOG_DEBUG, "PUT " + path);
        response = client_.put_stream(path, "application/x-tar", reader,
                                      std::chrono::duration_cast<std::chrono::milliseconds>(config_.timeout));
    } catch (...) {
        request_error = std::current_exception();
    }
    ::close(fds[0]);
    producer.join();
    if (producer_error) std::rethrow_exception(producer_error);
    if (request_error) std::rethrow_exception(request_error);
    if (response.status < 200 || response.status >= 300) {
        try {
            docker_engine::EngineClient::expect_success(response,
                                                        "PUT /containers/" + target.id.substr(0, 12) + "/archive");
        } catch (const docker_engine::EngineError &e) {
            throw InfraFailure(std::string("copying changed files through the archive API: ") + e.what());
        }
    }
}

void DockerUpdater::verify_copies(const Target &target, const std::vector<updater::CopyMapping> &copies) {
    // The archive API can report success for files it failed to write.
    std::vector<std::string> problems;
    for (const auto &copy : copies) {
        const auto response = client_.head("/containers/" + target.id + "/archive?path=" +
                                           docker_engine::EngineClient::query_escape(copy.container_path));
        if (response.status == 404) {
            problems.push_back(copy.container_path + " (missing)");
            continue;
        }
        docker_engine::EngineClient::expect_success(response,
                                                    "HEAD /containers/" + target.id.substr(0, 12) + "/archive");
        struct stat local {};
        if (::lstat(copy.local_path.c_str(), &local) != 0 || !S_ISREG(local.st_mode)) continue;
        boost::system::error_code ec;
        const auto stat_json = boost::json::parse(decode_base64(response.header("x-docker-container-path-stat")), ec);
        const auto *size = ec || !stat_json.is_object() ? nullptr : stat_json.as_object().if_contains("size");
        if (size == nullptr || !size->is_int64()) {
            problems.push_back(copy.container_path + " (the daemon gave no size)");
        } else if (size->as_int64() != static_cast<std::int64_t>(local.st_size)) {
            problems.push_back(copy.container_path + " (size " + std::to_string(size->as_int64()) + ", expected " +
                               std::to_string(local.st_size) + ")");
        }
    }
    if (problems.empty()) return;
    std::string message = "the archive API accepted the copy into " + target.display() + " but " +
                          std::to_string(problems.size()) + " of " + std::to_string(copies.size()) +
                          " path(s) did not arrive as sent:";
    for (std::size_t i = 0; i < problems.size() && i < kVerifyProblemsShown; ++i) message += "\n  " + problems[i];
    if (problems.size() > kVerifyProblemsShown)
        message += "\n  ... and " + std::to_string(problems.size() - kVerifyProblemsShown) + " more";
    throw InfraFailure(message);
}

Outcome DockerUpdater::run_commands(const Target &target, const std::vector<updater::RunStep> &runs,
                                    const UpdateLog &log) {
    for (std::size_t i = 0; i < runs.size(); ++i) {
        if (!runs[i].echo_off) log(LU_LOG_INFO, updaters::run_step_line(i, runs.size(), runs[i].argv));
        if (runs[i].argv.empty()) throw InfraFailure("run step " + std::to_string(i + 1) + " has no command");
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
    if (!gone.empty()) throw InfraFailure(gone + "\n" + message);
    // A SIGKILL is the runtime's doing (e.g. out of memory), not the user's command.
    if (result.exit_code == updaters::kExitKilled) throw InfraFailure(message);
    return Outcome::run_failure(result.exit_code, message);
}

void DockerUpdater::refuse_agent(const Target &target, const std::string &why, const UpdateLog &log) {
    {
        std::lock_guard lock(agent_mutex_);
        agent_refused_.refuse(target.id, target.started_at, why);
    }
    log(LU_LOG_WARN, "lu-agent cannot run in container " + target.display() + ": " + why +
                         "; updating it through one exec per update instead");
}

void DockerUpdater::install_agent(const Target &target, const agent_client::AgentBinary &binary) {
    const std::string at = "/containers/" + target.id + "/archive?path=";
    if (client_.head(at + docker_engine::EngineClient::query_escape(binary.container_path)).status == 200) return;
    const std::string archive = agent_client::agent_archive(binary);
    std::size_t offset = 0;
    const docker_engine::BodyReader reader = [&archive, &offset](char *buffer, std::size_t capacity) -> std::int64_t {
        const auto n = std::min(capacity, archive.size() - offset);
        std::copy_n(archive.data() + offset, n, buffer);
        offset += n;
        return static_cast<std::int64_t>(n);
    };
    const auto response = client_.put_stream(at + "%2F", "application/x-tar", reader,
                                             std::chrono::duration_cast<std::chrono::milliseconds>(config_.timeout));
    docker_engine::EngineClient::expect_success(
        response, "copying lu-agent in (PUT /containers/" + target.id.substr(0, 12) + "/archive)");
}

std::unique_ptr<AgentSession> DockerUpdater::start_agent(const Target &target, const UpdateLog &log) {
    {
        std::lock_guard lock(agent_mutex_);
        if (agent_refused_.refusal(target.id, target.started_at, false)) return nullptr;
    }
    std::string why;
    try {
        if (!agent_binary_) agent_binary_ = agent_client::load_agent_binary(config_.agent_path);
    } catch (const std::runtime_error &e) {
        refuse_agent(target, e.what(), log);
        return nullptr;
    }
    try {
        install_agent(target, *agent_binary_);
        const docker_engine::ExecSpec spec{target.id, {agent_binary_->container_path}, config_.user};
        auto session =
            AgentSession::start(client_, spec, std::chrono::duration_cast<std::chrono::milliseconds>(config_.timeout),
                                agent_stderr_to(log));
        log(LU_LOG_DEBUG, "Started " + session->description() + " in " + target.display());
        return session;
    } catch (const docker_engine::EngineError &e) {
        if (e.failure() == docker_engine::EngineFailure::unreachable ||
            e.failure() == docker_engine::EngineFailure::permission_denied)
            throw;
        why = e.what();
    } catch (const AgentSessionBroken &e) {
        why = e.what();
        if (why.find("exit code 126") != std::string::npos)
            why +=
                ": the container cannot execute it (a noexec mount, another CPU architecture, or a \"user\" the "
                "container does not know: see the lines above)";
    }
    // A container that stopped meanwhile is that update's failure, not the agent's.
    const auto gone = container_gone_reason(target, false);
    if (!gone.empty()) throw InfraFailure(gone);
    // A restart or a pause racing the agent's start says nothing lasting about the container.
    if (const auto interrupted = start_interrupted(target, why); !interrupted.empty()) {
        log(LU_LOG_INFO, "lu-agent did not start in " + target.display() + " (" + why + ") because " + interrupted +
                             "; this update goes through exec, the next one tries lu-agent again");
        return nullptr;
    }
    refuse_agent(target, why, log);
    return nullptr;
}

bool DockerUpdater::is_paused(const Target &target) {
    try {
        const auto response = client_.get("/containers/" + target.id + "/json");
        if (response.status != 200) return false;
        const auto object = parse_object(response.body, "inspect");
        const auto *state = object.if_contains("State");
        return state != nullptr && state->is_object() && common::flag_at(state->as_object(), "Paused");
    } catch (const std::exception &) {
        return false;  // the update's own failure says enough
    }
}

std::string DockerUpdater::start_interrupted(const Target &target, const std::string &why) {
    if (why.find("exit code 137") != std::string::npos) return "it was killed (exit code 137)";
    try {
        const auto response = client_.get("/containers/" + target.id + "/json");
        if (response.status != 200) return {};
        const auto object = parse_object(response.body, "inspect");
        const auto *state = object.if_contains("State");
        if (state == nullptr || !state->is_object()) return {};
        const auto &s = state->as_object();
        if (common::flag_at(s, "Paused")) return "the container was paused";
        if (common::text_at(s, "StartedAt") != target.started_at) return "the container restarted meanwhile";
    } catch (const std::exception &) {
        return {};  // the agent's failure says enough
    }
    return {};
}

std::shared_ptr<DockerUpdater::AgentSlot> DockerUpdater::agent_slot(const std::string &container_id) {
    std::lock_guard lock(agent_mutex_);
    // Sessions of removed or re-created containers end with their container: let them go.
    for (auto it = agent_slots_.begin(); it != agent_slots_.end();) {
        std::unique_lock idle(it->second->mutex, std::try_to_lock);
        const bool gone = it->first != container_id && it->second.use_count() == 1 && idle.owns_lock() &&
                          (!it->second->session || !it->second->session->alive());
        if (idle.owns_lock()) idle.unlock();
        it = gone ? agent_slots_.erase(it) : std::next(it);
    }
    auto &entry = agent_slots_[container_id];
    if (!entry) entry = std::make_shared<AgentSlot>();
    return entry;
}

void DockerUpdater::drop_session(AgentSlot &slot) {
    slot.session.reset();
    slot.lost = true;
}

AgentSession *DockerUpdater::session_in(AgentSlot &slot, const Target &target, const UpdateLog &log) {
    if (slot.session) slot.session->route_stderr(agent_stderr_to(log));
    if (slot.session && !slot.session->alive()) {
        log(LU_LOG_INFO, "The lu-agent session in " + target.display() + " ended; starting a new one");
        drop_session(slot);
    }
    if (!slot.session) {
        slot.session = start_agent(target, log);
        if (!slot.session) return nullptr;
        slot.session->route_stderr(agent_stderr_to(log));
        if (slot.lost) {
            slot.lost = false;
            reconnects_.fetch_add(1);
        }
    }
    return slot.session.get();
}

std::optional<Outcome> DockerUpdater::update_through_agent(Target &target, const updater::Request &request,
                                                           updaters::ReplayableArchive *archive, const UpdateLog &log) {
    {
        std::lock_guard lock(agent_mutex_);
        if (agent_refused_.refusal(target.id, target.started_at, true)) return std::nullopt;
    }
    const std::shared_ptr<AgentSlot> slot = agent_slot(target.id);
    std::lock_guard hold(slot->mutex);
    const EndOfUse<AgentSlot> end_of_use(*slot);
    for (int attempt = 0;; ++attempt) {
        AgentSession *session = session_in(*slot, target, log);
        if (session == nullptr) return std::nullopt;
        bool run_started = false;
        const updaters::ArchiveReadFn pass = archive != nullptr ? archive->pass() : request.archive;
        try {
            return apply_through_agent(*session, target, request, &pass, log, run_started);
        } catch (const AgentSessionBroken &e) {
            drop_session(*slot);
            const auto gone = container_gone_reason(target, true);
            const std::string what = "the lu-agent session in " + target.display() + " broke: " + e.what();
            if (!gone.empty()) throw InfraFailure(std::string(gone).append("\n").append(what));
            // Files are whole-or-nothing and sending them again is harmless; a run may have happened.
            if (run_started) throw InfraFailure(what + " (during a run: not sent again, the command may have run)");
            if (attempt > 0) throw InfraFailure(what + " (twice in a row)");
            log(LU_LOG_INFO, what + "; sending the update again through a new session");
            target = inspect_target(request.container);
        }
    }
}

// The first save then costs what the next ones do, not the agent's copy and start.
void DockerUpdater::prepare(const updater::ContainerRef &container, const UpdateLog &log) {
    if (!config_.agent || container.id.empty()) return;
    if (!endpoint_error_.empty()) throw std::runtime_error(endpoint_error_);
    const Target target = inspect_target(container);
    {
        std::lock_guard lock(agent_mutex_);
        if (agent_refused_.refusal(target.id, target.started_at, false)) return;
    }
    const std::shared_ptr<AgentSlot> slot = agent_slot(target.id);
    // An update arriving meanwhile waits for this start and uses its session.
    std::lock_guard hold(slot->mutex);
    const EndOfUse<AgentSlot> end_of_use(*slot);
    session_in(*slot, target, log);
}

DigestOutcome DockerUpdater::digest(const updater::ContainerRef &container, const std::string &path,
                                    const DigestEntryFn &each, const UpdateLog &log) {
    Target target{container.id, container.name.empty() ? container.id : container.name, {}};
    const auto failed = [](std::string message) {
        return DigestOutcome{DigestOutcome::Kind::failed, std::move(message)};
    };
    try {
        if (!endpoint_error_.empty()) return failed(endpoint_error_);
        if (container.id.empty()) return failed("no container ID to digest");
        if (const auto problem = agent_protocol::path_problem(path); !problem.empty())
            return failed("cannot digest " + path + ": " + problem);
        target = inspect_target(container);
        return digest_in(target, path, each, log);
    } catch (const InfraFailure &e) {
        return failed(e.what());
    } catch (const docker_engine::EngineError &e) {
        if (e.failure() == docker_engine::EngineFailure::unreachable ||
            e.failure() == docker_engine::EngineFailure::permission_denied)
            return failed(e.what());
        return failed("digesting " + path + " in container " + target.display() + ": " + e.what());
    } catch (const std::exception &e) {
        return failed("digesting " + path + " in container " + target.display() + ": " + e.what());
    }
}

DigestOutcome DockerUpdater::digest_in(const Target &target, const std::string &path, const DigestEntryFn &each,
                                       const UpdateLog &log) {
    const std::string needs = "verify needs lu-agent in the container: ";
    if (!config_.agent)
        return {DigestOutcome::Kind::unavailable, needs + "the docker updater's \"agent\" setting is false"};
    const auto refusal = [&]() -> std::optional<std::string> {
        std::lock_guard lock(agent_mutex_);
        return agent_refused_.refusal(target.id, target.started_at, false);
    };
    if (auto why = refusal()) return {DigestOutcome::Kind::unavailable, needs + *why};
    const std::shared_ptr<AgentSlot> slot = agent_slot(target.id);
    std::lock_guard hold(slot->mutex);
    const EndOfUse<AgentSlot> end_of_use(*slot);
    const auto stall = std::chrono::duration_cast<std::chrono::milliseconds>(config_.timeout);
    for (int attempt = 0;; ++attempt) {
        AgentSession *session = session_in(*slot, target, log);
        if (session == nullptr)
            return {DigestOutcome::Kind::unavailable, needs + refusal().value_or("it did not start")};
        bool stopped = false;
        std::size_t handed = 0;
        try {
            const auto result = agent_client::digest_through_agent(*session, path, stall,
                                                                   [&](const agent_protocol::DigestEntry &entry) {
                                                                       ++handed;
                                                                       stopped = !each(entry);
                                                                       return !stopped;
                                                                   });
            if (stopped) return {DigestOutcome::Kind::stopped, {}};
            if (result.error == ENOENT && result.entries == 0)
                return {DigestOutcome::Kind::not_found, "nothing at " + path + " in container " + target.display()};
            // ENOENT past the first entry: a path went away during the walk, so it is not there.
            if (result.error != 0 && result.error != ENOENT)
                return {DigestOutcome::Kind::failed, "in container " + target.display() + ": " + result.message};
            return {};
        } catch (const AgentSessionBroken &e) {
            drop_session(*slot);
            const std::string what = "the lu-agent session in " + target.display() + " broke: " + e.what();
            if (const auto gone = container_gone_reason(target, true); !gone.empty())
                return {DigestOutcome::Kind::failed, std::string(gone).append("\n").append(what)};
            // A digest only reads: asking again is harmless, unless entries were handed out already.
            if (attempt > 0 || handed > 0) return {DigestOutcome::Kind::failed, what};
            log(LU_LOG_INFO, what + "; digesting again through a new session");
        }
    }
}

Outcome DockerUpdater::apply_through_agent(AgentSession &session, const Target &target, const updater::Request &request,
                                           const updaters::ArchiveReadFn *archive, const UpdateLog &log,
                                           bool &run_started) {
    const auto stall = std::chrono::duration_cast<std::chrono::milliseconds>(config_.timeout);
    if (!request.copies.empty() && (archive == nullptr || !*archive))
        throw InfraFailure("the update names files to copy but carries no archive");
    log(LU_LOG_DEBUG, "Updating " + target.display() +
                          " through lu-agent: " + std::to_string(request.delete_paths.size()) + " delete(s), " +
                          std::to_string(request.copies.size()) + " file(s)");
    try {
        agent_client::apply_files_through_agent(session, request.delete_paths,
                                                request.copies.empty() ? nullptr : archive, stall, request.sync_roots);
    } catch (const agent_client::AgentRequestFailed &e) {
        std::string hint;
        const std::string_view said = e.what();
        if (said.find("Permission denied") != std::string_view::npos ||
            said.find("Read-only") != std::string_view::npos) {
            const std::string who = config_.user.empty() ? "the image's default user" : "user '" + config_.user + "'";
            hint = "\nThe container's filesystem refused the write. Check that " + who +
                   " may write there (the docker updater's \"user\" setting picks another) and that the path is not "
                   "on a read-only volume.";
        }
        throw InfraFailure("updating " + target.display() + " through lu-agent: " + e.what() + hint);
    }
    for (std::size_t i = 0; i < request.runs.size(); ++i) {
        const auto &run = request.runs[i];
        if (!run.echo_off) log(LU_LOG_INFO, updaters::run_step_line(i, request.runs.size(), run.argv));
        if (run.argv.empty()) throw InfraFailure("run step " + std::to_string(i + 1) + " has no command");
        if (needs_own_exec(run)) {
            run_started = true;
            if (auto failed = run_with_exec(target, run, log)) return *failed;
            continue;
        }
        OutputCollector output(log, LU_LOG_INFO);
        const auto handler = output.handler();
        run_started = true;
        const auto result = agent_client::run_through_agent(
            session, run.argv, std::chrono::duration_cast<std::chrono::milliseconds>(config_.run_timeout), stall,
            [&handler](int stream, std::string_view data) {
                handler(stream == 2 ? docker_engine::OutputStream::stderr_stream
                                    : docker_engine::OutputStream::stdout_stream,
                        data);
            });
        output.finish();
        if (!result.message.empty()) log(LU_LOG_INFO, result.message);
        const auto prefix = "executing on container " + target.id.substr(0, 12) + ": ";
        if (result.timed_out)
            throw InfraFailure(prefix + updaters::command_text(run.argv) +
                               ": timed out waiting for the command to finish: the limit is " +
                               std::to_string(config_.run_timeout.count()) + "s; lu-agent killed its process group");
        if (result.exit_code == 0) continue;
        const auto message = prefix + updaters::exec_failure(run.argv, result.exit_code);
        if (result.exit_code == updaters::kExitKilled) {
            const auto gone = container_gone_reason(target, true);
            throw InfraFailure(gone.empty() ? message : std::string(gone).append("\n").append(message));
        }
        return Outcome::run_failure(result.exit_code, message);
    }
    if (request.restart)
        restart(target, log);
    else
        log(LU_LOG_DEBUG, "Hot reload on, skipping container restart: " + target.display());
    return {};
}

void DockerUpdater::restart(const Target &target, const UpdateLog &log) {
    log(LU_LOG_DEBUG, "Restarting container: " + target.display());
    const std::string path = "/containers/" + target.id + "/restart?t=0";
    const auto response = client_.post(path);
    if (response.status == 404) throw InfraFailure("container " + target.display() + " vanished before its restart");
    docker_engine::EngineClient::expect_success(response, "POST " + path);
}

}  // namespace liveupdate::docker
