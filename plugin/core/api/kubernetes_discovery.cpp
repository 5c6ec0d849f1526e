#include "plugin/core/api/kubernetes_discovery.hpp"

#include "common/json_fields.hpp"

namespace liveupdate::api {
using namespace common;

namespace {

ContainerState decode_state(const json::object *o, const std::string &path) {
    ContainerState s;
    if (o == nullptr) return s;
    if (const auto *w = object_field(*o, "waiting", path))
        s.waiting = ContainerStateWaiting{string_field(*w, "reason", child(path, "waiting"))};
    if (const auto *r = object_field(*o, "running", path))
        s.running = ContainerStateRunning{time_field(*r, "startedAt", child(path, "running"))};
    if (const auto *t = object_field(*o, "terminated", path)) {
        const std::string p = child(path, "terminated");
        s.terminated = ContainerStateTerminated{time_field(*t, "startedAt", p), time_field(*t, "finishedAt", p),
                                                string_field(*t, "reason", p), int_field(*t, "exitCode", p)};
    }
    return s;
}

}  // namespace

KubernetesDiscovery decode_kubernetes_discovery(const json::object &object) {
    KubernetesDiscovery kd;
    const auto *status = object_field(object, "status", "");
    if (status == nullptr) return kd;
    const auto *pods = array_field(*status, "pods", "status");
    if (pods == nullptr) return kd;
    for (std::size_t i = 0; i < pods->size(); ++i) {
        const std::string p = index("status.pods", i);
        const auto &po = expect_object((*pods)[i], p);
        Pod pod;
        pod.name = string_field(po, "name", p);
        pod.namespace_name = string_field(po, "namespace", p);
        pod.created_at = time_field(po, "createdAt", p);
        pod.phase = string_field(po, "phase", p);
        if (const auto *cs = array_field(po, "containers", p)) {
            for (std::size_t j = 0; j < cs->size(); ++j) {
                const std::string cp = index(child(p, "containers"), j);
                const auto &co = expect_object((*cs)[j], cp);
                pod.containers.push_back({string_field(co, "name", cp), string_field(co, "id", cp),
                                          string_field(co, "image", cp), bool_field(co, "ready", cp),
                                          decode_state(object_field(co, "state", cp), child(cp, "state"))});
            }
        }
        pod.ancestor_uid = string_field(po, "ancestorUID", p);
        pod.pod_template_spec_hash = string_field(po, "podTemplateSpecHash", p);
        if (const auto *o = object_field(po, "owner", p)) {
            const std::string op = child(p, "owner");
            pod.owner = PodOwner{string_field(*o, "name", op), string_field(*o, "kind", op),
                                 time_field(*o, "creationTimestamp", op)};
        }
        kd.pods.push_back(std::move(pod));
    }
    return kd;
}

}  // namespace liveupdate::api
