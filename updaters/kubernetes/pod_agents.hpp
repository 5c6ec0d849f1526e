// The kubernetes updater through lu-agent (common/agent_client/agent_driver):
// one session per container (pod + container + container ID), started on its
// first update or ahead of it (prepare) and kept for the next ones. An agent
// injected at admission (/.lu-agent/injected/lu-agent, `lu-host webhook
// --mutate`) of our protocol version is used as it is; else ours is copied in
// through an exec of `tar -x` (Kubernetes has no archive API) only when
// starting it says it is not there yet.
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "common/agent_client/agent_driver.hpp"
#include "updaters/kubernetes/api_exec.hpp"
#include "updaters/kubernetes/kubectl_updater.hpp"
#include "updaters/shared/replayable_archive.hpp"

namespace liveupdate::kubernetes {

class PodAgents {
public:
    PodAgents(const KubectlConfig &config, std::shared_ptr<ApiExec> api);

    // The update through the container's agent session; nullopt when the
    // agent cannot run there (then nothing was changed). `archive`: the
    // update's archive (null without copies), passed over again after a broken
    // session. The container's ID (request.container.id) tells a restarted
    // container from the one before. Logs to request.log.
    std::optional<updater::Outcome> update(const updater::Request &request, updaters::ReplayableArchive *archive);

    // Starts the container's session ahead of its first update
    // (lu_updater_api.prepare). Throws what kept it from starting.
    void prepare(const updater::ContainerRef &container, const updater::UpdateLog &log);

    // A new session of the container's own, for sync back's watch
    // (liveupdate/ext/sync_back.h). Throws updaters::WatchUnsupported where
    // the agent cannot run, anything else when the pod cannot be reached.
    std::unique_ptr<agent_client::AgentSession> watch_session(const updater::ContainerRef &container,
                                                              const updater::UpdateLog &log);

private:
    KubectlConfig config_;
    std::shared_ptr<ApiExec> api_;
    agent_client::AgentDriver driver_;
};

}  // namespace liveupdate::kubernetes
