// Which containers a LiveUpdate's selector picks, in visiting order, and the
// time the current build started (Tilt's luResource), for Kubernetes (C01),
// Docker Compose (C02) and this project's LocalContainer (L01).
#pragma once

#include <string>
#include <vector>

#include "liveupdate/updater.hpp"
#include "plugin/core/api/api_object.hpp"

namespace liveupdate {

// A container the selector picked: which one (its root: the LocalContainer's
// spec.root), and what discovery last said of it.
struct SelectedContainer {
    updater::ContainerRef ref;
    std::string pod_phase;  // "" outside Kubernetes
    api::ContainerState state;
};

struct SelectedResource {
    std::vector<SelectedContainer> containers;
    common::MicroTime best_start_time;
    std::string via;  // updater class: "kubernetes", "docker", "local"
    // C07: Tilt's rule for the containers of Kubernetes pods, where one
    // container's failure holds them all. Compose's replicas and a
    // LocalContainer, which Tilt selects one of, are held each alone (C10).
    bool failure_holds_all = false;
};

// C01: pods of the current apply (see apply_filter.hpp), then image /
// container name / ImageMap imageFromCluster; unnamed containers skipped.
// apply and image_map may be null. Throws std::runtime_error when the
// apply's result names an object without a UID.
SelectedResource select_kubernetes(const api::KubernetesDiscovery &discovery, const api::KubernetesApply *apply,
                                   const api::LiveUpdateKubernetesSelector &selector, const api::ImageMap *image_map);
// C02: the service's one container; every replica when the status lists them.
SelectedResource select_docker_compose(const api::DockerComposeService &service);
// L01: the LocalContainer's one container, mapped as C02.
SelectedResource select_local(const api::LocalContainer &local);

// C02: Docker's container status to a Kubernetes-style container state.
api::ContainerState container_state_from_docker(const api::DockerContainerState &state);

// Image references name the same image, tags and digests aside
// ("nginx:1" and "docker.io/library/nginx:2" do).
bool image_names_equal(std::string_view a, std::string_view b);

// Tilt's Container.DisplayName: "pod/container", else the name, else a short ID.
std::string container_display_name(const std::string &pod_name, const std::string &container_name,
                                   const std::string &container_id);

}  // namespace liveupdate
