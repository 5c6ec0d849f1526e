// The KubernetesDiscovery kind: the pods (and their containers) it found.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <boost/json.hpp>

#include "common/micro_time.hpp"

namespace liveupdate::api {

struct ContainerStateWaiting {
    std::string reason;
};

struct ContainerStateRunning {
    common::MicroTime started_at;
};

struct ContainerStateTerminated {
    common::MicroTime started_at;
    common::MicroTime finished_at;
    std::string reason;
    std::int64_t exit_code = 0;
};

struct ContainerState {
    std::optional<ContainerStateWaiting> waiting;
    std::optional<ContainerStateRunning> running;
    std::optional<ContainerStateTerminated> terminated;
};

struct Container {
    std::string name;
    std::string id;
    std::string image;
    bool ready = false;
    ContainerState state;
};

struct PodOwner {
    std::string name;
    std::string kind;
    common::MicroTime creation_timestamp;
};

struct Pod {
    std::string name;
    std::string namespace_name;
    common::MicroTime created_at;
    std::string phase;
    std::vector<Container> containers;
    std::string ancestor_uid;
    std::string pod_template_spec_hash;
    std::optional<PodOwner> owner;
};

struct KubernetesDiscovery {
    std::vector<Pod> pods;
};

KubernetesDiscovery decode_kubernetes_discovery(const boost::json::object &object);

}  // namespace liveupdate::api
