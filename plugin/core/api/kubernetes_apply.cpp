#include "plugin/core/api/kubernetes_apply.hpp"

#include "common/json_fields.hpp"

namespace liveupdate::api {
using namespace common;

KubernetesApply decode_kubernetes_apply(const json::object &object) {
    KubernetesApply ka;
    if (const auto *status = object_field(object, "status", "")) {
        ka.status.last_apply_start_time = time_field(*status, "lastApplyStartTime", "status");
        ka.status.result_yaml = string_field(*status, "resultYAML", "status");
    }
    return ka;
}

}  // namespace liveupdate::api
