#include "core/api/docker_compose_service.hpp"

#include "core/json_fields.hpp"

namespace liveupdate::api {
using namespace json_fields;

RuntimeContainerStatus decode_runtime_container_status(const json::object *o) {
    RuntimeContainerStatus s;
    if (o == nullptr) return s;
    s.container_id = string_field(*o, "containerID", "status");
    s.container_name = string_field(*o, "containerName", "status");
    s.last_apply_start_time = time_field(*o, "lastApplyStartTime", "status");
    if (const auto *cs = object_field(*o, "containerState", "status")) {
        const std::string p = "status.containerState";
        s.container_state = DockerContainerState{string_field(*cs, "status", p), time_field(*cs, "startedAt", p),
                                                 time_field(*cs, "finishedAt", p), int_field(*cs, "exitCode", p)};
    }
    return s;
}

DockerComposeService decode_docker_compose_service(const json::object &object) {
    return DockerComposeService{decode_runtime_container_status(object_field(object, "status", ""))};
}

}  // namespace liveupdate::api
