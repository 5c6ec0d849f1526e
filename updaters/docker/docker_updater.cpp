#include "updaters/docker/docker_updater.hpp"

#include <algorithm>
#include <cctype>
#include <exception>
#include <stdexcept>

#include "common/docker_engine/engine_error.hpp"
#include "updaters/docker/docker_agent_target.hpp"
#include "updaters/shared/agent_update.hpp"
#include "updaters/shared/change_watch_entry.hpp"
#include "updaters/shared/replayable_archive.hpp"
#include "updaters/shared/update_failure.hpp"

namespace liveupdate::docker {

using updater::Outcome;
using updater::UpdateLog;

namespace {

docker_engine::Endpoint endpoint_or_error(const std::string &configured, std::string &error) {
    if (!configured.empty()) return docker_engine::parse_docker_host(configured);  // a bad setting is refused at create
    try {
        return docker_engine::resolve_endpoint("");
    } catch (const std::invalid_argument &e) {
        error = std::string("DOCKER_HOST: ") + e.what();
        return docker_engine::parse_docker_host(docker_engine::kDefaultDockerHost);
    }
}

// A container's full ID, as an inspect gives it (64 hex digits), not a short one.
bool is_full_id(const std::string &id) {
    return id.size() == 64 && std::all_of(id.begin(), id.end(), [](char c) { return std::isxdigit(c) != 0; });
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
      client_(*client_holder_),
      agents_(config_.agent_path, std::chrono::duration_cast<std::chrono::milliseconds>(config_.timeout)) {}

docker_engine::ExecTimeouts DockerUpdater::timeouts() const {
    return {std::chrono::duration_cast<std::chrono::milliseconds>(config_.timeout),
            std::chrono::duration_cast<std::chrono::milliseconds>(config_.run_timeout)};
}

Outcome DockerUpdater::update(const updater::Request &original) {
    const UpdateLog &log = original.log;
    const updater::ContainerRef &container = original.container;
    Target target{container.id, container.name.empty() ? container.id : container.name, {}};
    // A container that stopped meanwhile explains the failure: it is not running, not failed (C07).
    const auto infra = [&](const std::string &what) {
        const auto gone = container_gone_reason(target, true);
        return gone.empty() ? Outcome::infra_failure(what) : Outcome::container_not_running(gone + "\n" + what);
    };
    try {
        if (!endpoint_error_.empty()) throw updaters::InfraFailure(endpoint_error_);
        if (container.id.empty()) throw updaters::InfraFailure("no container ID to update");
        // A live lu-agent session says the container runs (a stop, restart or
        // removal ends it): the inspect, a millisecond of every save, is left to
        // when there is none. Sessions go by the full ID an inspect gives.
        bool inspected = !config_.agent || !is_full_id(container.id);
        if (inspected) target = inspect_target(container);
        // The agent may need to send the archive again, or hand it to the exec
        // path after failing to start: each pass starts it again from the source.
        std::optional<updaters::ReplayableArchive> replayable;
        if (config_.agent && !original.copies.empty() && original.archive)
            replayable.emplace(original.archive, original.archive_rewind);
        if (config_.agent)
            if (auto result =
                    update_through_agent(target, inspected, original, replayable ? &*replayable : nullptr, log))
                return *result;
        if (!inspected) target = inspect_target(container);
        // Copied only for the exec path: the copy list of a large sync is large.
        std::optional<updater::Request> replay;
        if (replayable) {
            replay = original;
            replay->archive = replayable->pass();
        }
        const updater::Request &request = replay ? *replay : original;
        unguarded_.note(request, target.id, "container " + target.display(),
                        config_.agent ? "lu-agent cannot run in it (only lu-agent compares before it replaces)"
                                      : "the docker updater's \"agent\" setting is false (only lu-agent compares "
                                        "before it replaces)");
        update_through_exec(target, request, log);
        auto result = run_commands(target, request.runs, log);
        result.agent = updater::AgentSource::none;
        return restart_if_asked(std::move(result), target, request.restart, log);
    } catch (const updaters::ContainerNotRunning &e) {
        return Outcome::container_not_running(e.what());
    } catch (const updaters::InfraFailure &e) {
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

std::optional<Outcome> DockerUpdater::update_through_agent(Target &target, bool &inspected,
                                                           const updater::Request &request,
                                                           updaters::ReplayableArchive *archive, const UpdateLog &log) {
    const std::string who = config_.user.empty() ? "the image's default user" : "user '" + config_.user + "'";
    AgentContainer container(*this, target, request.container, inspected);
    auto outcome = agents_.update(container, log, [&](agent_client::AgentStream &session, bool &run_started) {
        const common::ArchiveReadFn pass = archive != nullptr ? archive->pass() : request.archive;
        updaters::AgentUpdateSettings settings{
            {"container " + target.display(), "executing on container " + target.id.substr(0, 12) + ": ",
             "The container's filesystem refused the write. Check that " + who +
                 " may write there (the docker updater's \"user\" setting picks another) and that the path is not on "
                 "a read-only volume."},
            std::chrono::duration_cast<std::chrono::milliseconds>(config_.timeout),
            std::chrono::duration_cast<std::chrono::milliseconds>(config_.run_timeout),
            needs_own_exec,
            [&](const updater::RunStep &run) { return run_with_exec(target, run, log); },
            [&] { return container_gone_reason(target, true); },
            nullptr};  // the restart is the container's, below
        return restart_if_asked(updaters::update_through_agent(session, request, pass, settings, run_started), target,
                                request.restart, log);
    });
    inspected = container.inspected();
    return outcome;
}

Outcome DockerUpdater::restart_if_asked(Outcome result, const Target &target, bool asked, const UpdateLog &log) {
    if (result.kind != Outcome::Kind::ok) return result;
    if (asked) {
        restart(target, log);
        result.process_restarted = true;
    } else {
        log(LU_LOG_DEBUG, "Hot reload on, skipping container restart: " + target.display());
    }
    return result;
}

// The first save then costs what the next ones do, not the agent's copy and start.
void DockerUpdater::prepare(const updater::ContainerRef &container, const UpdateLog &log) {
    if (!config_.agent || container.id.empty()) return;
    if (!endpoint_error_.empty()) throw std::runtime_error(endpoint_error_);
    Target target = inspect_target(container);
    AgentContainer agent_container(*this, target, container);
    agents_.prepare(agent_container, log);
}

agent_client::DigestOutcome DockerUpdater::digest(const updater::ContainerRef &container,
                                                  const agent_protocol::Digest &request,
                                                  const agent_client::DigestEntryFn &each, const UpdateLog &log,
                                                  const std::function<bool()> &keep_going) {
    using agent_client::DigestOutcome;
    const std::string &path = request.path;
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
        if (!config_.agent)
            return {DigestOutcome::Kind::unavailable,
                    "verify needs lu-agent in the container: the docker updater's \"agent\" setting is false"};
        AgentContainer agent_container(*this, target, container);
        return agents_.digest(agent_container, request, each, log, keep_going);
    } catch (const updaters::InfraFailure &e) {
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

std::unique_ptr<agent_client::AgentSession> DockerUpdater::watch_session(const updater::ContainerRef &container,
                                                                         const UpdateLog &log) {
    if (!endpoint_error_.empty()) throw std::runtime_error(endpoint_error_);
    if (container.id.empty()) throw std::invalid_argument("no container ID to watch");
    if (!config_.agent)
        throw updaters::WatchUnsupported(
            "sync back needs lu-agent in the container: the docker updater's \"agent\" setting is false");
    Target target = inspect_target(container);
    AgentContainer agent_container(*this, target, container);
    auto session = agents_.open_session(agent_container, log);
    if (!session)
        throw updaters::WatchUnsupported("lu-agent cannot run in container " + target.display() +
                                         " (the log says why): its files do not come back");
    return session;
}

}  // namespace liveupdate::docker
