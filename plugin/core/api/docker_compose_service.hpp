// The DockerComposeService kind; its status shape is shared by LocalContainer.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <boost/json.hpp>

#include "common/micro_time.hpp"

namespace liveupdate::api {

// Docker's view of one container ("created", "running", "exited", ...).
struct DockerContainerState {
    std::string status;
    common::MicroTime started_at;
    common::MicroTime finished_at;
    std::int64_t exit_code = 0;
};

struct RuntimeContainerStatus {
    std::string container_id;
    std::string container_name;
    std::optional<DockerContainerState> container_state;
    common::MicroTime last_apply_start_time;
};

struct DockerComposeService {
    RuntimeContainerStatus status;
    // Not in Tilt: status.replicas, every container of a scaled service
    // (`--scale web=3`), each in the shape of the status; empty when absent.
    std::vector<RuntimeContainerStatus> replicas;
    bool replicas_listed = false;  // status.replicas present (even empty): discovery saw the whole service
    std::string service;           // spec.service
    std::string project;           // spec.project.name
};

RuntimeContainerStatus decode_runtime_container_status(const boost::json::object *status);
DockerComposeService decode_docker_compose_service(const boost::json::object &object);

}  // namespace liveupdate::api
