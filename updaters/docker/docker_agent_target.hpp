// A container as the lu-agent driver reaches it through the docker updater:
// the agent it was started with (mounted at /.lu-agent/injected), else ours
// copied in with the archive API, started by an exec
// (ExecAgentTransport), its failures to start told apart by the container's
// state (stopped, paused, restarted) from what lasts.
#pragma once

#include "common/agent_client/agent_driver.hpp"
#include "updaters/docker/docker_updater.hpp"

namespace liveupdate::docker {

class DockerUpdater::AgentContainer final : public agent_client::AgentTarget {
public:
    // target: as inspected for this use (inspected: false when only named, to be inspected
    // if no live session says it runs); inspected again from `container` before a resend.
    AgentContainer(DockerUpdater &updater, Target &target, const updater::ContainerRef &container,
                   bool inspected = true)
        : updater_(updater), target_(target), container_(container), inspected_(inspected) {}

    agent_client::AgentPlace place() const override;
    std::string injected_agent() override;
    void install_ahead(const agent_client::AgentBinary &binary) override;
    std::string install(const agent_client::AgentBinary &binary) override;
    std::unique_ptr<agent_client::AgentTransport> open(const std::string &command) override;
    bool lasting_refusal(std::string &why, int exit_code, const updater::UpdateLog &log) override;
    std::string gone_reason() override { return updater_.container_gone_reason(target_, true); }
    void refresh() override {
        target_ = updater_.inspect_target(container_);
        inspected_ = true;
    }
    void confirm() override {
        if (!inspected_) refresh();
    }
    std::string local_root() const override;
    std::chrono::milliseconds late_probe() const override { return kPauseProbe; }
    std::string late_reason() override;
    bool inspected() const noexcept { return inspected_; }

    // How late an agent's answer may be before the engine is asked whether the
    // container is paused (its agent, frozen, answers nothing).
    static constexpr std::chrono::milliseconds kPauseProbe{200};

private:
    // Copies the agent in unless it is there already.
    void install_agent(const agent_client::AgentBinary &binary);

    DockerUpdater &updater_;
    Target &target_;
    const updater::ContainerRef &container_;
    bool inspected_;
};

}  // namespace liveupdate::docker
