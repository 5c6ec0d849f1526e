#include "plugin/core/api/live_update.hpp"

#include "common/json_fields.hpp"

namespace liveupdate::api {
using namespace common;

namespace {

LiveUpdateSelector decode_selector(const json::object *o, const std::string &path) {
    LiveUpdateSelector s;
    if (o == nullptr) return s;
    if (const auto *k = object_field(*o, "kubernetes", path)) {
        const std::string p = child(path, "kubernetes");
        s.kubernetes = LiveUpdateKubernetesSelector{
            string_field(*k, "discoveryName", p), string_field(*k, "applyName", p), string_field(*k, "image", p),
            string_field(*k, "containerName", p), string_field(*k, "imageMapName", p)};
    }
    if (const auto *d = object_field(*o, "dockerCompose", path))
        s.docker_compose = LiveUpdateDockerComposeSelector{string_field(*d, "service", child(path, "dockerCompose"))};
    if (const auto *l = object_field(*o, "local", path))
        s.local = LiveUpdateLocalSelector{string_field(*l, "container", child(path, "local"))};
    return s;
}

}  // namespace

LiveUpdateSpec decode_live_update_spec(const json::object *o) {
    LiveUpdateSpec spec;
    if (o == nullptr) return spec;
    const std::string path = "spec";
    spec.base_path = string_field(*o, "basePath", path);
    spec.selector = decode_selector(object_field(*o, "selector", path), child(path, "selector"));
    if (const auto *arr = array_field(*o, "sources", path)) {
        for (std::size_t i = 0; i < arr->size(); ++i) {
            const std::string p = index(child(path, "sources"), i);
            const auto &so = expect_object((*arr)[i], p);
            spec.sources.push_back({string_field(so, "fileWatch", p), string_field(so, "imageMap", p)});
        }
    }
    spec.stop_paths = string_array_field(*o, "stopPaths", path);
    if (const auto *arr = array_field(*o, "syncs", path)) {
        for (std::size_t i = 0; i < arr->size(); ++i) {
            const std::string p = index(child(path, "syncs"), i);
            const auto &so = expect_object((*arr)[i], p);
            spec.syncs.push_back({string_field(so, "localPath", p), string_field(so, "containerPath", p),
                                  string_array_field(so, "syncBack", p)});
        }
    }
    if (const auto *arr = array_field(*o, "execs", path)) {
        for (std::size_t i = 0; i < arr->size(); ++i) {
            const std::string p = index(child(path, "execs"), i);
            const auto &eo = expect_object((*arr)[i], p);
            spec.execs.push_back({string_array_field(eo, "args", p), string_array_field(eo, "triggerPaths", p),
                                  bool_field(eo, "echoOff", p), string_field(eo, "user", p),
                                  string_field(eo, "workingDir", p), string_array_field(eo, "env", p),
                                  bool_field(eo, "privileged", p)});
        }
    }
    spec.restart = string_field(*o, "restart", path);
    spec.restart_paths = string_array_field(*o, "restartPaths", path);
    if (const auto *v = member(*o, "initialSync")) {
        if (!v->is_object()) throw DecodeError("spec.initialSync", "expected object");
        spec.initial_sync = true;
    }
    return spec;
}

LiveUpdateStatus decode_live_update_status(const json::object *o) {
    LiveUpdateStatus status;
    if (o == nullptr) return status;
    const std::string path = "status";
    if (const auto *arr = array_field(*o, "containers", path)) {
        for (std::size_t i = 0; i < arr->size(); ++i) {
            const std::string p = index(child(path, "containers"), i);
            const auto &co = expect_object((*arr)[i], p);
            LiveUpdateContainerStatus c;
            c.container_name = string_field(co, "containerName", p);
            c.container_id = string_field(co, "containerID", p);
            c.pod_name = string_field(co, "podName", p);
            c.namespace_name = string_field(co, "namespace", p);
            c.last_file_time_synced = time_field(co, "lastFileTimeSynced", p);
            c.last_exec_error = string_field(co, "lastExecError", p);
            c.agent = string_field(co, "agent", p);
            c.last_restart_time = time_field(co, "lastRestartTime", p);
            if (const auto *w = object_field(co, "waiting", p)) {
                const std::string wp = child(p, "waiting");
                c.waiting =
                    LiveUpdateContainerStateWaiting{string_field(*w, "reason", wp), string_field(*w, "message", wp)};
            }
            status.containers.push_back(std::move(c));
        }
    }
    if (const auto *f = object_field(*o, "failed", path)) {
        const std::string p = child(path, "failed");
        status.failed = LiveUpdateStateFailed{string_field(*f, "reason", p), string_field(*f, "message", p),
                                              time_field(*f, "lastTransitionTime", p)};
    }
    return status;
}

json::value encode_live_update_status(const LiveUpdateStatus &status) {
    json::object out;
    if (!status.containers.empty()) {
        json::array arr;
        for (const auto &c : status.containers) {
            json::object co;
            co["containerName"] = c.container_name;
            if (!c.container_id.empty()) co["containerID"] = c.container_id;
            co["podName"] = c.pod_name;
            co["namespace"] = c.namespace_name;
            if (!c.last_file_time_synced.is_zero()) co["lastFileTimeSynced"] = c.last_file_time_synced.format();
            if (!c.last_exec_error.empty()) co["lastExecError"] = c.last_exec_error;
            if (c.waiting) {
                json::object w;
                if (!c.waiting->reason.empty()) w["reason"] = c.waiting->reason;
                if (!c.waiting->message.empty()) w["message"] = c.waiting->message;
                co["waiting"] = std::move(w);
            }
            if (!c.agent.empty()) co["agent"] = c.agent;
            if (!c.last_restart_time.is_zero()) co["lastRestartTime"] = c.last_restart_time.format();
            arr.push_back(std::move(co));
        }
        out["containers"] = std::move(arr);
    }
    if (status.failed) {
        json::object f;
        if (!status.failed->reason.empty()) f["reason"] = status.failed->reason;
        if (!status.failed->message.empty()) f["message"] = status.failed->message;
        if (!status.failed->last_transition_time.is_zero())
            f["lastTransitionTime"] = status.failed->last_transition_time.format();
        out["failed"] = std::move(f);
    }
    return out;
}

}  // namespace liveupdate::api
