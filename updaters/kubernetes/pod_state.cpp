#include "updaters/kubernetes/pod_state.hpp"

namespace liveupdate::kubernetes {
namespace json = boost::json;

namespace {

std::string text_of(const json::value *v) {
    return v != nullptr && v->is_string() ? std::string(v->as_string()) : std::string();
}

const json::object *object_at(const json::object &o, const char *key) {
    const json::value *v = o.if_contains(key);
    return v != nullptr && v->is_object() ? &v->as_object() : nullptr;
}

// "containerd://abc" → "abc", as KubernetesDiscovery gives container IDs.
std::string bare_id(const std::string &id) {
    const auto scheme = id.find("://");
    return scheme == std::string::npos ? id : id.substr(scheme + 3);
}

}  // namespace

std::string gone_reason_of(const json::value &pod, const updater::ContainerRef &container) {
    const std::string shown =
        "pod " + (container.namespace_name.empty() ? "default" : container.namespace_name) + "/" + container.pod;
    if (!pod.is_object()) return {};
    const json::object &p = pod.as_object();
    if (const json::object *meta = object_at(p, "metadata"); meta != nullptr && meta->if_contains("deletionTimestamp"))
        return shown + " is being deleted";
    const json::object *status = object_at(p, "status");
    if (status == nullptr) return {};
    const std::string phase = text_of(status->if_contains("phase"));
    if (phase == "Succeeded" || phase == "Failed") return shown + " has ended (" + phase + ")";
    const json::value *statuses = status->if_contains("containerStatuses");
    if (statuses == nullptr || !statuses->is_array()) return {};
    for (const json::value &s : statuses->as_array()) {
        if (!s.is_object() || text_of(s.as_object().if_contains("name")) != container.name) continue;
        const json::object &cs = s.as_object();
        const std::string which = "container " + container.name + " of " + shown;
        const json::object *state = object_at(cs, "state");
        if (state != nullptr && state->if_contains("terminated") != nullptr) return which + " has terminated";
        if (state != nullptr && state->if_contains("waiting") != nullptr) return which + " is not running (waiting)";
        const std::string id = bare_id(text_of(cs.if_contains("containerID")));
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
        if (r.status == 404) return "pod " + ns + "/" + container.pod + " is gone (deleted)";
        if (r.status / 100 != 2) return {};
        return gone_reason_of(json::parse(r.body), container);
    } catch (const std::exception &) {
        return {};  // cannot tell: the update's own failure stands
    }
}

}  // namespace liveupdate::kubernetes
