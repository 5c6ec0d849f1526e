// The C ABI face of the kubernetes updater (through liveupdate/updater.hpp).
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <thread>
#include <utility>

#include "liveupdate/ext/digest.h"
#include "liveupdate/ext/sync_back.h"
#include "liveupdate/updater.hpp"
#include "updaters/kubernetes/api_exec.hpp"
#include "updaters/kubernetes/kubectl_updater.hpp"
#include "updaters/kubernetes/pod_agents.hpp"
#include "updaters/kubernetes/pod_state.hpp"
#include "updaters/shared/change_watch_entry.hpp"
#include "updaters/shared/digest_table.hpp"
#include "updaters/shared/replayable_archive.hpp"
#include "updaters/shared/unguarded_notice.hpp"

namespace {

namespace k8s = liveupdate::kubernetes;
namespace lu = liveupdate::updater;

class KubernetesPlugin {
public:
    static constexpr const char *name = "kubernetes";
    static constexpr const char *version = "0.1.0";

    KubernetesPlugin(std::string_view config_json, const lu::Host &host)
        : config_(k8s::parse_kubectl_config(config_json)), host_(host), api_(std::make_shared<k8s::ApiExec>(config_)) {
        if (config_.exec == k8s::KubectlConfig::Exec::api) {
            if (config_.agent) agents_ = std::make_shared<k8s::PodAgents>(config_, api_);
            exec_ = [api = api_](const liveupdate::kube::PodExecTarget &t, const std::vector<std::string> &c,
                                 const liveupdate::kube::ExecStdinFn *a, std::chrono::seconds s,
                                 const lu::UpdateLog &l) { return (*api)(t, c, a, s, l); };
        } else {
            exec_ = k8s::kubectl_exec_fn(config_);
        }
    }

    // An update that failed while its container stopped or its pod went
    // away: the container is not running (C07), not the LiveUpdate's failure.
    lu::Outcome update(const lu::Request &request) const {
        lu::Outcome outcome = try_update(request);
        if (outcome.kind != lu::Outcome::Kind::infra_failure && outcome.kind != lu::Outcome::Kind::run_failure)
            return outcome;
        // The kubelet tells the API server of a stopped container a moment
        // later: asked again for up to 2 s before the failure stands.
        std::string gone = k8s::container_gone_reason(*api_, request.container);
        for (int asked = 1; gone.empty() && asked < 5; ++asked) {
            std::this_thread::sleep_for(std::chrono::milliseconds(500));
            gone = k8s::container_gone_reason(*api_, request.container);
        }
        if (gone.empty()) return outcome;
        return lu::Outcome::container_not_running(gone + "\n" + outcome.message);
    }

    // Starts the container's lu-agent ahead of its first update; without the agent, nothing to do.
    void prepare(const lu::ContainerRef &container) {
        if (agents_) agents_->prepare(container, host_.update_log());
    }

    const void *extension(std::string_view id) const;

    // Offered only with the agent (extension), so agents_ is set; lines of a
    // digest asked without a log of its own go to the host's.
    liveupdate::agent_client::DigestOutcome digest(const lu::ContainerRef &container,
                                                   const liveupdate::agent_protocol::Digest &request,
                                                   const liveupdate::agent_client::DigestEntryFn &each,
                                                   const lu::UpdateLog &digest_log,
                                                   const std::function<bool()> &keep_going) {
        return agents_->digest(container, request, each, digest_log ? digest_log : host_.update_log(), keep_going);
    }

    std::uint64_t reconnect_count() const noexcept { return agents_ ? agents_->reconnect_count() : 0; }
    std::uint64_t session_count() const noexcept { return agents_ ? agents_->session_count() : 0; }

    // Sync back's watch needs the agent: without it, one-way.
    std::unique_ptr<liveupdate::agent_client::AgentSession> watch_session(const lu::ContainerRef &container,
                                                                          const lu::UpdateLog &log) {
        if (!agents_)
            throw liveupdate::updaters::WatchUnsupported(
                "sync back needs lu-agent in the pod: the kubernetes updater's \"agent\" setting is false or "
                "its exec is kubectl's");
        return agents_->watch_session(container, log ? log : host_.update_log());
    }

private:
    lu::Outcome try_update(const lu::Request &request) const;
    // The update without lu-agent (per-update execs).
    lu::Outcome through_exec(const lu::Request &request) const;

    k8s::KubectlConfig config_;
    lu::Host host_;
    std::shared_ptr<k8s::ApiExec> api_;       // the API server's exec, and the pod's state after a failure
    std::shared_ptr<k8s::PodAgents> agents_;  // null: per-update exec only
    k8s::PodExecFn exec_;
    // Guarded updates taking the exec path, told once per container (mutable: try_update is const).
    mutable liveupdate::updaters::UnguardedNotices unguarded_;
};

lu::Outcome KubernetesPlugin::through_exec(const lu::Request &request) const {
    const auto &c = request.container;
    unguarded_.note(request, c.id.empty() ? c.namespace_name + "/" + c.pod + "/" + c.name : c.id,
                    "pod " + c.namespace_name + "/" + c.pod + " container " + c.name,
                    agents_ ? "lu-agent cannot run in it (only lu-agent compares before it replaces)"
                            : "the kubernetes updater's \"agent\" setting is false or its exec is kubectl's (only "
                              "lu-agent compares before it replaces)");
    // An exec reaches a pod by its name: a pod deleted and made again under
    // it would take an update meant for the container it replaced. One look
    // per update, from the command that writes once it runs (exec_gate.hpp),
    // as lu-agent's sessions look once started (confirm_started).
    return k8s::update_pod_container(exec_, config_, request,
                                     [this, &c] { return k8s::container_gone_reason(*api_, c); });
}

lu::Outcome KubernetesPlugin::try_update(const lu::Request &request) const {
    // A restart is the supervised process's, through the agent; the exec path refuses it.
    if (!agents_ || request.container.pod.empty()) return through_exec(request);
    if (request.copies.empty() || !request.archive) {
        if (auto through_agent = agents_->update(request, nullptr)) return std::move(*through_agent);
        return through_exec(request);
    }
    try {
        // The agent may send the archive again, or leave it to the exec path: each pass starts it again.
        liveupdate::updaters::ReplayableArchive archive(request.archive, request.archive_rewind);
        if (auto through_agent = agents_->update(request, &archive)) return std::move(*through_agent);
        lu::Request replay = request;
        replay.archive = archive.pass();
        return through_exec(replay);
    } catch (const std::exception &e) {
        return lu::Outcome::infra_failure(e.what());
    }
}

constexpr char kKubernetesName[] = "kubernetes";
constexpr const lu_digest_extension &kDigest =
    liveupdate::updaters::DigestTable<KubernetesPlugin, kKubernetesName>::table;
constexpr const lu_sync_back_extension &kSyncBack =
    liveupdate::updaters::SyncBackTable<KubernetesPlugin, kKubernetesName>::table;

// A pod is digested through its lu-agent: without the agent (its setting
// off, or kubectl's exec) there is no digest, and the host says so.
const void *KubernetesPlugin::extension(std::string_view id) const {
    if (id == LU_DIGEST_EXTENSION_ID) return agents_ ? &kDigest : nullptr;
    if (id == LU_SYNC_BACK_EXTENSION_ID) return &kSyncBack;
    return nullptr;
}

}  // namespace

extern "C" LU_EXPORT const lu_updater_api *lu_updater_plugin_entry(uint32_t abi_version,
                                                                   const lu_plugin_info **out_info) {
    return lu::entry<KubernetesPlugin>(abi_version, out_info);
}
