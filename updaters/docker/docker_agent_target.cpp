#include "updaters/docker/docker_agent_target.hpp"

#include <unistd.h>

#include <algorithm>

#include "common/docker_engine/engine_error.hpp"
#include "updaters/docker/exec_agent_transport.hpp"
#include "updaters/shared/update_failure.hpp"

namespace liveupdate::docker {
namespace {

using agent_client::AgentSessionBroken;

bool unreachable(const docker_engine::EngineError &e) {
    return e.failure() == docker_engine::EngineFailure::unreachable ||
           e.failure() == docker_engine::EngineFailure::permission_denied;
}

}  // namespace

agent_client::AgentPlace DockerUpdater::AgentContainer::place() const {
    return {target_.id, target_.id, target_.started_at, "container " + target_.display()};
}

void DockerUpdater::AgentContainer::install_agent(const agent_client::AgentBinary &binary) {
    docker_engine::EngineClient &client = updater_.client_;
    const Target &target = target_;
    const std::string at = "/containers/" + target.id + "/archive?path=";
    if (client.head(at + docker_engine::EngineClient::query_escape(binary.container_path)).status == 200) return;
    const std::string archive = agent_client::agent_archive(binary);
    std::size_t offset = 0;
    const docker_engine::BodyReader reader = [&archive, &offset](char *buffer, std::size_t capacity) -> std::int64_t {
        const auto n = std::min(capacity, archive.size() - offset);
        std::copy_n(archive.data() + offset, n, buffer);
        offset += n;
        return static_cast<std::int64_t>(n);
    };
    const auto response =
        client.put_stream(at + "%2F", "application/x-tar", reader,
                          std::chrono::duration_cast<std::chrono::milliseconds>(updater_.config_.timeout));
    docker_engine::EngineClient::expect_success(
        response, "copying lu-agent in (PUT /containers/" + target.id.substr(0, 12) + "/archive)");
}

std::string DockerUpdater::AgentContainer::injected_agent() {
    const std::string path(agent_client::kInjectedAgentPath);
    try {
        const auto found = updater_.client_.head("/containers/" + target_.id +
                                                 "/archive?path=" + docker_engine::EngineClient::query_escape(path));
        return found.status == 200 ? path : std::string();
    } catch (const docker_engine::EngineError &e) {
        if (unreachable(e)) throw;
        throw AgentSessionBroken(e.what());
    }
}

void DockerUpdater::AgentContainer::install_ahead(const agent_client::AgentBinary &binary) {
    try {
        install_agent(binary);
    } catch (const docker_engine::EngineError &e) {
        if (unreachable(e)) throw;
        throw AgentSessionBroken(e.what());
    }
}

std::string DockerUpdater::AgentContainer::install(const agent_client::AgentBinary &binary) {
    try {
        install_agent(binary);
        return {};
    } catch (const docker_engine::EngineError &e) {
        if (unreachable(e)) throw;
        return e.what();
    }
}

std::unique_ptr<agent_client::AgentTransport> DockerUpdater::AgentContainer::open(const std::string &command) {
    const docker_engine::ExecSpec spec{target_.id, {command}, updater_.config_.user};
    try {
        return std::make_unique<ExecAgentTransport>(updater_.client_, spec);
    } catch (const docker_engine::EngineError &e) {
        if (unreachable(e)) throw;
        throw AgentSessionBroken(e.what());
    }
}

std::string DockerUpdater::AgentContainer::local_root() const {
    // A remote engine's pids are not ours; the socket's tokens catch a local one in another pid namespace.
    if (updater_.client_.endpoint().kind != docker_engine::Endpoint::Kind::unix_socket || target_.pid <= 0) return {};
    const std::string root = "/proc/" + std::to_string(target_.pid) + "/root";
    return ::access(root.c_str(), X_OK) == 0 ? root : std::string();
}

std::string DockerUpdater::AgentContainer::late_reason() {
    if (!updater_.is_paused(target_)) return {};
    return "container " + target_.display() + " is paused: unpause it to live update";
}

bool DockerUpdater::AgentContainer::lasting_refusal(std::string &why, int exit_code, const updater::UpdateLog &log) {
    if (exit_code == 126 || why.find("exit code 126") != std::string::npos)
        why +=
            ": the container cannot execute it (a noexec mount, another CPU architecture, or a \"user\" the "
            "container does not know: see the lines above)";
    // A container that stopped meanwhile is that update's failure, not the agent's.
    const auto gone = updater_.container_gone_reason(target_, false);
    if (!gone.empty()) throw updaters::ContainerNotRunning(gone);
    // A restart or a pause racing the agent's start says nothing lasting about the container.
    if (const auto interrupted = updater_.start_interrupted(target_, why); !interrupted.empty()) {
        log(LU_LOG_INFO, "lu-agent did not start in " + target_.display() + " (" + why + ") because " + interrupted +
                             "; this update goes through exec, the next one tries lu-agent again");
        return false;
    }
    return true;
}

}  // namespace liveupdate::docker
