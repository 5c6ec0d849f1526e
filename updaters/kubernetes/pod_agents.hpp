// The kubernetes updater through lu-agent: one session per container (pod +
// container + container ID), started on its first update and kept for the
// next ones. The agent is copied in through an exec of `tar -x` (Kubernetes
// has no archive API) only when starting it says it is not there yet. Where
// it cannot run, the container is remembered with why (logged once) and its
// updates take the per-update exec path, until the refusal lapses
// (updaters/shared/agent_refusals: a new container ID, or enough updates).
#pragma once

#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>

#include "common/agent_client/agent_binary.hpp"
#include "updaters/kubernetes/api_exec.hpp"
#include "updaters/kubernetes/kubectl_updater.hpp"
#include "updaters/kubernetes/pod_agent_session.hpp"
#include "updaters/shared/agent_refusals.hpp"
#include "updaters/shared/replayable_archive.hpp"

namespace liveupdate::kubernetes {

class PodAgents {
public:
    PodAgents(const KubectlConfig &config, std::shared_ptr<ApiExec> api) : config_(config), api_(std::move(api)) {}

    // The update through the container's agent session; nullopt when the
    // agent cannot run there (then nothing was changed). `archive`: the
    // update's archive (null without copies), passed over again after a broken
    // session. The container's ID (request.container.id) tells a restarted
    // container from the one before. Logs to request.log.
    std::optional<updater::Outcome> update(const updater::Request &request, updaters::ReplayableArchive *archive);

private:
    struct Slot {
        std::mutex mutex;
        std::unique_ptr<PodAgentSession> session;
    };

    std::unique_ptr<PodAgentSession> start(const PodContainer &target, const std::string &container_id,
                                           const updater::UpdateLog &log);
    // Copies the agent in: "" when done, else why it could not be.
    std::string install(const PodContainer &target, const agent_client::AgentBinary &binary);
    // Refused for this container ID (request.container.id) of the target.
    void refuse(const PodContainer &target, const std::string &container_id, const std::string &why,
                const updater::UpdateLog &log);
    updater::Outcome apply(PodAgentSession &session, const updater::Request &request, bool &run_started);

    KubectlConfig config_;
    std::shared_ptr<ApiExec> api_;
    std::mutex mutex_;
    std::unordered_map<std::string, std::shared_ptr<Slot>> slots_;
    // By namespace/pod/container, each for one container ID.
    updaters::AgentRefusals refused_;
    std::optional<agent_client::AgentBinary> binary_;
};

}  // namespace liveupdate::kubernetes
