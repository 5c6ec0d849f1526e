// The C ABI face of the kubernetes updater (through liveupdate/updater.hpp).
#include <memory>
#include <optional>
#include <string_view>
#include <utility>

#include "updaters/kubernetes/api_exec.hpp"
#include "updaters/kubernetes/kubectl_updater.hpp"
#include "liveupdate/updater.hpp"
#include "updaters/kubernetes/pod_agents.hpp"

namespace {

namespace k8s = liveupdate::kubernetes;
namespace lu = liveupdate::updater;

class KubernetesPlugin {
public:
    static constexpr const char *name = "kubernetes";
    static constexpr const char *version = "0.1.0";

    KubernetesPlugin(std::string_view config_json, const lu::Host &) : config_(k8s::parse_kubectl_config(config_json)) {
        if (config_.exec == k8s::KubectlConfig::Exec::api) {
            auto api = std::make_shared<k8s::ApiExec>(config_);
            if (config_.agent) agents_ = std::make_shared<k8s::PodAgents>(config_, api);
            exec_ = [api](const k8s::PodContainer &t, const std::vector<std::string> &c,
                          const liveupdate::docker::ArchiveReadFn *a, std::chrono::seconds s,
                          const k8s::LineLogFn &l) { return (*api)(t, c, a, s, l); };
        } else {
            exec_ = k8s::kubectl_exec_fn(config_);
        }
    }

    lu::Outcome update(const lu::Request &request) const;

private:
    k8s::KubectlConfig config_;
    std::shared_ptr<k8s::PodAgents> agents_;  // null: per-update exec only
    k8s::PodExecFn exec_;
};

lu::Outcome KubernetesPlugin::update(const lu::Request &request) const {
    const lu::ContainerRef &c = request.container;
    k8s::PodUpdate pod_update{{c.namespace_name, c.pod, c.name}, !request.copies.empty(), request.archive,
                              request.delete_paths, {}, request.restart};
    for (const lu::RunStep &run : request.runs) pod_update.runs.push_back({run.argv, run.echo_off});
    const k8s::LineLogFn log = [&request](int level, std::string_view line) {
        request.log(static_cast<lu_log_level>(level), line);
    };
    std::optional<k8s::PodUpdateResult> through_agent;
    if (agents_ && !pod_update.target.pod.empty() && !pod_update.restart) {
        std::shared_ptr<const std::string> archive_bytes;
        try {
            if (pod_update.has_copies && pod_update.archive) archive_bytes = k8s::read_whole_archive(pod_update.archive);
        } catch (const std::exception &e) {
            return {lu::Outcome::Kind::infra_failure, 0, e.what()};
        }
        through_agent = agents_->update(pod_update, c.id, archive_bytes, log);
        if (archive_bytes) pod_update.archive = k8s::archive_reader_over(archive_bytes);
    }
    k8s::PodUpdateResult result =
        through_agent ? std::move(*through_agent) : k8s::update_pod_container(exec_, config_, pod_update, log);
    // The result kinds are the ABI's, in its order.
    static_assert(static_cast<int>(k8s::PodUpdateResult::Kind::ok) == LU_OUTCOME_OK &&
                  static_cast<int>(k8s::PodUpdateResult::Kind::run_failure) == LU_OUTCOME_RUN_FAILURE &&
                  static_cast<int>(k8s::PodUpdateResult::Kind::infra_failure) == LU_OUTCOME_INFRA_FAILURE);
    return {static_cast<lu::Outcome::Kind>(result.kind), result.exit_code, std::move(result.message)};
}

}  // namespace

extern "C" LU_EXPORT const lu_updater_api *lu_updater_plugin_entry(uint32_t abi_version, const lu_plugin_info **out_info) {
    return lu::entry<KubernetesPlugin>(abi_version, out_info);
}
