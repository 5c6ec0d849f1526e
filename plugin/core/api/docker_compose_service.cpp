#include "plugin/core/api/docker_compose_service.hpp"

#include "common/json_fields.hpp"

namespace liveupdate::api {
using namespace common;

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
    const json::object *status = object_field(object, "status", "");
    DockerComposeService service;
    service.status = decode_runtime_container_status(status);
    if (const json::object *spec = object_field(object, "spec", "")) {
        service.service = string_field(*spec, "service", "spec");
        if (const json::object *project = object_field(*spec, "project", "spec"))
            service.project = string_field(*project, "name", "spec.project");
    }
    if (status == nullptr) return service;
    if (const auto *arr = array_field(*status, "replicas", "status")) {
        service.replicas_listed = true;
        for (std::size_t i = 0; i < arr->size(); ++i)
            service.replicas.push_back(
                decode_runtime_container_status(&expect_object((*arr)[i], index("status.replicas", i))));
    }
    return service;
}

}  // namespace liveupdate::api
