#include "plugin/core/containers.hpp"

#include "plugin/core/apply_filter.hpp"

namespace liveupdate {
namespace {

// The repository part of a reference, normalised the way Docker does.
std::string familiar_name(std::string_view ref) {
    if (const auto at = ref.find('@'); at != std::string_view::npos) ref = ref.substr(0, at);
    const auto slash = ref.rfind('/');
    const auto colon = ref.rfind(':');
    if (colon != std::string_view::npos && (slash == std::string_view::npos || colon > slash))
        ref = ref.substr(0, colon);
    std::string name(ref);
    for (const std::string_view prefix : {"docker.io/", "index.docker.io/"}) {
        if (name.rfind(prefix, 0) == 0) {
            name.erase(0, prefix.size());
            break;
        }
    }
    if (name.rfind("library/", 0) == 0 && name.find('/', 8) == std::string::npos) name.erase(0, 8);
    return name;
}

bool selector_matches(const api::Container &c, const api::LiveUpdateKubernetesSelector &selector,
                      const api::ImageMap *image_map) {
    if (!selector.image.empty()) return image_names_equal(selector.image, c.image);
    if (!selector.container_name.empty()) return selector.container_name == c.name;
    if (!selector.image_map_name.empty())
        return image_map != nullptr && image_names_equal(image_map->status.image_from_cluster, c.image);
    return false;
}

SelectedResource select_runtime_container(const api::RuntimeContainerStatus &status) {
    SelectedResource r;
    r.best_start_time = status.last_apply_start_time;
    if (status.container_id.empty() || !status.container_state) return r;
    r.containers.push_back({updater::ContainerRef{status.container_id, status.container_name, "", "", ""}, "",
                            container_state_from_docker(*status.container_state)});
    return r;
}

}  // namespace

bool image_names_equal(std::string_view a, std::string_view b) {
    if (a.empty() || b.empty()) return false;
    return familiar_name(a) == familiar_name(b);
}

api::ContainerState container_state_from_docker(const api::DockerContainerState &state) {
    api::ContainerState s;
    const std::string &st = state.status;
    if (st == "created" || st == "paused" || st == "restarting") {
        s.waiting = api::ContainerStateWaiting{st};
    } else if (st == "running") {
        s.running = api::ContainerStateRunning{state.started_at};
    } else if (st == "removing" || st == "exited" || st == "dead") {
        s.terminated = api::ContainerStateTerminated{state.started_at, state.finished_at, st, state.exit_code};
    }
    return s;
}

SelectedResource select_kubernetes(const api::KubernetesDiscovery &discovery, const api::KubernetesApply *apply,
                                   const api::LiveUpdateKubernetesSelector &selector, const api::ImageMap *image_map) {
    SelectedResource r;
    r.via = "kubernetes";  // X01: the updater class the selector implies
    r.failure_holds_all = true;
    std::optional<ApplyFilter> filter;
    if (apply != nullptr) filter = apply_filter_from_result(apply->status.result_yaml);
    const auto pods = filter_pods(filter ? &*filter : nullptr, discovery.pods);
    if (apply != nullptr) {
        r.best_start_time = apply->status.last_apply_start_time;
    } else {
        for (const auto &pod : pods) {
            if (r.best_start_time.is_zero() || (!pod.created_at.is_zero() && pod.created_at < r.best_start_time))
                r.best_start_time = pod.created_at;
        }
    }
    for (const auto &pod : pods) {
        for (const auto &c : pod.containers) {
            if (c.name.empty()) continue;
            if (!selector_matches(c, selector, image_map)) continue;
            r.containers.push_back(
                {updater::ContainerRef{c.id, c.name, pod.name, pod.namespace_name, ""}, pod.phase, c.state});
        }
    }
    return r;
}

SelectedResource select_docker_compose(const api::DockerComposeService &service) {
    SelectedResource r = select_runtime_container(service.status);
    if (!service.replicas.empty()) {
        r.containers.clear();
        for (const auto &replica : service.replicas) {
            SelectedResource one = select_runtime_container(replica);
            for (auto &c : one.containers) r.containers.push_back(std::move(c));
        }
    }
    r.via = "docker";  // X01
    return r;
}

SelectedResource select_local(const api::LocalContainer &local) {
    SelectedResource r = select_runtime_container(local.status);
    r.via = "local";  // X01
    for (SelectedContainer &c : r.containers) c.ref.root = local.spec.root;
    return r;
}

std::string container_display_name(const std::string &pod_name, const std::string &container_name,
                                   const std::string &container_id) {
    if (pod_name.empty()) {
        if (container_name.empty()) return container_id.substr(0, 10);
        return container_name;
    }
    return pod_name + "/" + container_name;
}

}  // namespace liveupdate
