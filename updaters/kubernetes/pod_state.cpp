#include "updaters/kubernetes/pod_state.hpp"

#include "common/json_fields.hpp"

namespace liveupdate::kubernetes {
namespace json = boost::json;

namespace {

// "containerd://abc" → "abc", as KubernetesDiscovery gives container IDs.
std::string bare_id(const std::string &id) {
    const auto scheme = id.find("://");
    return scheme == std::string::npos ? id : id.substr(scheme + 3);
}

}  // namespace

std::string gone_reason_of(const json::value &pod, const updater::ContainerRef &container) {
    const std::string shown =
        "pod " + (container.namespace_name.empty() ? "default" : container.namespace_name) + "/" + container.pod;
    if (common::member(pod, {"metadata", "deletionTimestamp"}) != nullptr) return shown + " is being deleted";
    const std::string phase = common::string_field(pod, {"status", "phase"});
    if (phase == "Succeeded" || phase == "Failed") return shown + " has ended (" + phase + ")";
    const json::array *statuses = common::array_field(pod, {"status", "containerStatuses"});
    if (statuses == nullptr) return {};
    for (std::size_t i = 0; i < statuses->size(); ++i) {
        const json::object &cs = common::expect_object((*statuses)[i], common::index("status.containerStatuses", i));
        if (common::string_field(cs, {"name"}) != container.name) continue;
        const std::string which = "container " + container.name + " of " + shown;
        if (common::member(cs, {"state", "terminated"}) != nullptr) return which + " has terminated";
        if (common::member(cs, {"state", "waiting"}) != nullptr) return which + " is not running (waiting)";
        const std::string id = bare_id(common::string_field(cs, {"containerID"}));
        if (!container.id.empty() && !id.empty() && id != bare_id(container.id))
            return which + " was started again since (container ID " + id.substr(0, 12) + ")";
        return {};
    }
    return {};
}

std::string container_gone_reason(ApiExec &api, const updater::ContainerRef &container) {
    if (container.pod.empty()) return {};
    const std::string ns = container.namespace_name.empty() ? "default" : container.namespace_name;
    try {
        const kube::ApiResponse r = api.client().request(
            "GET", "/api/v1/namespaces/" + kube::url_escape(ns) + "/pods/" + kube::url_escape(container.pod));
        if (r.status == 404)
            return "pod " + ns + "/" + container.pod +
                   " is gone (deleted); the next update goes to the pod that replaces it";
        if (r.status / 100 != 2) return {};
        return gone_reason_of(common::parse_limited(r.body), container);
    } catch (const std::exception &) {
        return {};  // cannot tell: the update's own failure stands
    }
}

}  // namespace liveupdate::kubernetes
