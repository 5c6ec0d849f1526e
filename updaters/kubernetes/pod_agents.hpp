// The kubernetes updater through lu-agent (common/agent_client/agent_driver):
// one session per container (pod + container + container ID), started on its
// first update or ahead of it (prepare) and kept for the next ones. An agent
// injected at admission (/.lu-agent/injected/lu-agent, `lu-host webhook
// --mutate`) of our protocol version is used as it is; else ours is copied in
// through an exec of `tar -x` (Kubernetes has no archive API) only when
// starting it says it is not there yet.
#pragma once

#include <cstdint>
#include <functional>
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

    // Digests request.path (absolute) in the container through its agent
    // session, in turn with its updates (liveupdate/ext/digest.h). Never
    // throws: where the agent cannot run, `unavailable` saying why; a pod
    // that cannot be reached, or gone or replaced (another container ID
    // under its name) by the digest's end, `failed`. keep_going false (asked while the
    // agent is silent): `stopped`, the session ended.
    agent_client::DigestOutcome digest(const updater::ContainerRef &container, const agent_protocol::Digest &request,
                                       const agent_client::DigestEntryFn &each, const updater::UpdateLog &log,
                                       const std::function<bool()> &keep_going = {});

    // How many agent sessions were started to replace one that ended or broke.
    std::uint64_t reconnect_count() const noexcept { return driver_.reconnect_count(); }
    // How many agent sessions were started, first ones and replacements alike.
    std::uint64_t session_count() const noexcept { return driver_.session_count(); }

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
