#include "plugin/core/dependencies.hpp"

#include <algorithm>

#include "plugin/core/json_equal.hpp"

namespace liveupdate {
namespace {

api::ObjectPtr require(const ObjectLookup &lookup, api::Kind kind, const std::string &name) {
    auto obj = lookup(kind, name);
    if (!obj) throw ObjectNotFound(api::not_found_message(kind, name));
    return obj;
}

bool status_differs(const api::ObjectPtr &last, const api::ObjectPtr &current) {
    if (!last) return true;
    if (last == current) return false;
    return !json_equal(last->raw_field("status"), current->raw_field("status"));
}

}  // namespace

bool refresh_sources(Monitor &monitor, const api::LiveUpdateSpec &spec, const ObjectLookup &lookup) {
    bool changed = false;
    for (const auto &s : spec.sources) {
        SourceTrack *track = nullptr;
        if (!s.file_watch.empty()) track = &monitor.sources[s.file_watch];
        api::ObjectPtr fw;
        if (!s.file_watch.empty()) fw = require(lookup, api::Kind::FileWatch, s.file_watch);
        api::ObjectPtr im;
        if (!s.image_map.empty()) im = require(lookup, api::Kind::ImageMap, s.image_map);
        if (!fw) continue;
        if (consume_source(*track, *fw, im.get())) changed = true;
    }
    return changed;
}

bool refresh_kubernetes(Monitor &monitor, const api::LiveUpdateSpec &spec, const ObjectLookup &lookup) {
    const auto &sel = spec.selector.kubernetes;
    if (!sel) return false;
    bool changed = false;
    api::ObjectPtr ka;
    if (!sel->apply_name.empty()) {
        ka = require(lookup, api::Kind::KubernetesApply, sel->apply_name);
        if (status_differs(monitor.last_kubernetes_apply, ka)) changed = true;
    }
    auto kd = require(lookup, api::Kind::KubernetesDiscovery, sel->discovery_name);
    api::ObjectPtr im;
    if (!sel->image_map_name.empty()) {
        im = require(lookup, api::Kind::ImageMap, sel->image_map_name);
        if (!monitor.last_image_map ||
            (monitor.last_image_map != im && !json_equal(monitor.last_image_map->raw, im->raw)))
            changed = true;
    }
    if (status_differs(monitor.last_kubernetes_discovery, kd)) changed = true;
    monitor.last_kubernetes_apply = ka;
    monitor.last_kubernetes_discovery = kd;
    monitor.last_image_map = im;
    return changed;
}

bool refresh_docker_compose(Monitor &monitor, const api::LiveUpdateSpec &spec, const ObjectLookup &lookup) {
    const auto &sel = spec.selector.docker_compose;
    if (!sel) return false;
    auto dcs = require(lookup, api::Kind::DockerComposeService, sel->service);
    const bool changed = status_differs(monitor.last_docker_compose_service, dcs);
    monitor.last_docker_compose_service = dcs;
    return changed;
}

bool refresh_local_container(Monitor &monitor, const api::LiveUpdateSpec &spec, const ObjectLookup &lookup) {
    const auto &sel = spec.selector.local;
    if (!sel || spec.selector.kubernetes || spec.selector.docker_compose) return false;
    auto lc = require(lookup, api::Kind::LocalContainer, sel->container);
    // The root belongs to the spec but decides where updates go.
    const bool changed = status_differs(monitor.last_local_container, lc) ||
                         !json_equal(monitor.last_local_container->raw_field("spec"), lc->raw_field("spec"));
    monitor.last_local_container = lc;
    return changed;
}

bool refresh_trigger_queue(Monitor &monitor, const ObjectLookup &lookup) {
    api::ConfigMap queue;
    if (auto cm = lookup(api::Kind::ConfigMap, api::kTriggerQueueName)) queue = std::get<api::ConfigMap>(cm->body);
    if (monitor.last_trigger_queue && monitor.last_trigger_queue->data == queue.data) return false;
    monitor.last_trigger_queue = std::move(queue);
    return true;
}

std::optional<std::string> invalid_selector_message(const api::LiveUpdateSpec &spec) {
    const auto &sel = spec.selector;
    if (sel.kubernetes) {
        if (sel.kubernetes->discovery_name.empty()) return "Kubernetes selector requires DiscoveryName";
        return std::nullopt;
    }
    if (sel.docker_compose) {
        if (sel.docker_compose->service.empty()) return "DockerCompose selector requires Service";
        return std::nullopt;
    }
    if (sel.local) {
        if (sel.local->container.empty()) return "Local selector requires Container";
        return std::nullopt;
    }
    return "No valid selector";
}

std::variant<SelectedResource, std::string> resource_of(const Monitor &monitor, const api::LiveUpdateSpec &spec) {
    const auto &sel = spec.selector;
    if (sel.kubernetes) {
        static const api::KubernetesDiscovery empty_discovery;
        const auto *kd = monitor.last_kubernetes_discovery
                             ? &std::get<api::KubernetesDiscovery>(monitor.last_kubernetes_discovery->body)
                             : &empty_discovery;
        const auto *ka = monitor.last_kubernetes_apply
                             ? &std::get<api::KubernetesApply>(monitor.last_kubernetes_apply->body)
                             : nullptr;
        const auto *im = monitor.last_image_map ? &std::get<api::ImageMap>(monitor.last_image_map->body) : nullptr;
        try {
            return select_kubernetes(*kd, ka, *sel.kubernetes, im);
        } catch (const std::runtime_error &e) {
            return std::string("creating kube resource: ") + e.what();
        }
    }
    if (sel.docker_compose) {
        if (!monitor.last_docker_compose_service) return std::string("no docker compose status");
        const auto &service = std::get<api::DockerComposeService>(monitor.last_docker_compose_service->body);
        SelectedResource selected = select_docker_compose(service);
        // Discovery listed the whole service and none of it runs or is about to
        // (C02: created, paused, restarting are waiting): say so, and sync once a
        // container appears (its status change reconciles again).
        const bool running_or_waiting = std::any_of(
            selected.containers.begin(), selected.containers.end(),
            [](const SelectedContainer &c) { return c.state.running.has_value() || c.state.waiting.has_value(); });
        if (service.replicas_listed && !running_or_waiting)
            return "no running container for service " + service.service + " of project " + service.project;
        return selected;
    }
    if (sel.local) {
        if (!monitor.last_local_container) return std::string("no local container status");
        return select_local(std::get<api::LocalContainer>(monitor.last_local_container->body));
    }
    return std::string("No valid selector");
}

}  // namespace liveupdate
