#include "plugin/core/dependency_index.hpp"

#include <algorithm>

namespace liveupdate {

std::vector<DependencyKey> referenced_objects(const api::LiveUpdateSpec &spec) {
    std::vector<DependencyKey> out;
    for (const auto &s : spec.sources) {
        if (!s.file_watch.empty()) out.emplace_back(api::Kind::FileWatch, s.file_watch);
        if (!s.image_map.empty()) out.emplace_back(api::Kind::ImageMap, s.image_map);
    }
    if (const auto &k = spec.selector.kubernetes) {
        if (!k->discovery_name.empty()) out.emplace_back(api::Kind::KubernetesDiscovery, k->discovery_name);
        if (!k->apply_name.empty()) out.emplace_back(api::Kind::KubernetesApply, k->apply_name);
        if (!k->image_map_name.empty()) out.emplace_back(api::Kind::ImageMap, k->image_map_name);
    }
    if (const auto &d = spec.selector.docker_compose; d && !d->service.empty())
        out.emplace_back(api::Kind::DockerComposeService, d->service);
    if (const auto &l = spec.selector.local; l && !l->container.empty())
        out.emplace_back(api::Kind::LocalContainer, l->container);
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
    return out;
}

void DependencyIndex::set(const std::string &live_update, const api::LiveUpdateSpec *spec) {
    if (const auto it = keys_of_.find(live_update); it != keys_of_.end()) {
        for (const auto &key : it->second) {
            auto b = by_object_.find(key);
            if (b == by_object_.end()) continue;
            b->second.erase(live_update);
            if (b->second.empty()) by_object_.erase(b);
        }
        keys_of_.erase(it);
    }
    if (spec == nullptr) return;
    auto keys = referenced_objects(*spec);
    for (const auto &key : keys) by_object_[key].insert(live_update);
    keys_of_[live_update] = std::move(keys);
}

std::vector<std::string> DependencyIndex::referencing(api::Kind kind, const std::string &name) const {
    const auto it = by_object_.find({kind, name});
    if (it == by_object_.end()) return {};
    return {it->second.begin(), it->second.end()};
}

std::vector<std::string> due_for_trigger_queue(const api::ConfigMap &queue,
                                               const std::vector<std::pair<std::string, std::string>> &manifests) {
    const auto queued = api::names_in_trigger_queue(queue);
    std::vector<std::string> out;
    for (const auto &[name, manifest] : manifests)
        if (!manifest.empty() && std::find(queued.begin(), queued.end(), manifest) != queued.end()) out.push_back(name);
    std::sort(out.begin(), out.end());
    return out;
}

}  // namespace liveupdate
