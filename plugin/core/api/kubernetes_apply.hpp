// The KubernetesApply kind: when the last apply started.
#pragma once

#include <boost/json.hpp>

#include "common/micro_time.hpp"

namespace liveupdate::api {

struct KubernetesApplyStatus {
    common::MicroTime last_apply_start_time;
    std::string result_yaml;  // the objects deployed
};

struct KubernetesApply {
    KubernetesApplyStatus status;
};

KubernetesApply decode_kubernetes_apply(const boost::json::object &object);

}  // namespace liveupdate::api
