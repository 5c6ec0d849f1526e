#include "host/verify/verify_targets.hpp"

#include <exception>
#include <memory>
#include <variant>

#include "plugin/core/containers.hpp"
#include "plugin/core/dependencies.hpp"
#include "plugin/core/initial_sync.hpp"
#include "plugin/core/plan.hpp"

namespace liveupdate::verify {

std::string ContainerTarget::display() const { return container_display_name(pod_name, name, id); }

LiveUpdateTargets resolve_targets(const std::string &live_update, const JsonLookup &lookup) {
    LiveUpdateTargets out;
    out.name = live_update;
    try {
        const std::optional<boost::json::object> raw = lookup(api::Kind::LiveUpdate, live_update);
        if (!raw) {
            out.problem = "LiveUpdate \"" + live_update + "\" not found (`lu-host get liveupdates` lists them)";
            return out;
        }
        const api::ApiObject object = api::decode_api_object(*raw);
        const api::LiveUpdateSpec &spec = std::get<api::LiveUpdate>(object.body).spec;
        if (auto invalid = invalid_selector_message(spec)) {
            out.problem = *invalid;
            return out;
        }
        const ObjectLookup objects = [&lookup](api::Kind kind, const std::string &name) -> api::ObjectPtr {
            auto found = lookup(kind, name);
            if (!found) return nullptr;
            return std::make_shared<const api::ApiObject>(api::decode_api_object(std::move(*found)));
        };
        Monitor monitor;
        refresh_sources(monitor, spec, objects);
        refresh_kubernetes(monitor, spec, objects);
        refresh_docker_compose(monitor, spec, objects);
        refresh_local_container(monitor, spec, objects);
        auto resource = resource_of(monitor, spec);
        if (const auto *why = std::get_if<std::string>(&resource)) {
            out.problem = *why;
            return out;
        }
        const SelectedResource &selected = std::get<SelectedResource>(resource);
        out.via = selected.via;
        for (const SelectedContainer &sc : selected.containers) {
            const api::Container &c = sc.container;
            if (!c.state.running || c.id.empty() || sc.pod_phase == "Succeeded" || sc.pod_phase == "Failed") continue;
            out.containers.push_back({c.id, c.name, sc.pod_name, sc.namespace_name, selected.local_root});
        }
        std::vector<api::IgnoreDef> source_ignores;
        for (const auto &[name, source] : monitor.sources)
            source_ignores.insert(source_ignores.end(), source.ignores.begin(), source.ignores.end());
        out.filter = initial_sync_filter(source_ignores);
        for (const PathMapping &rule : sync_rules(spec)) {
            const PathMapping whole = whole_rule_mapping(rule);
            out.targets.push_back({whole.local_path, whole.container_path});
        }
    } catch (const ObjectNotFound &e) {
        out.problem = e.what();
    } catch (const std::exception &e) {
        out.problem = "LiveUpdate \"" + live_update + "\": " + e.what();
    }
    return out;
}

std::vector<std::string> other_targets(const std::vector<LiveUpdateTargets> &all, const LiveUpdateTargets &self,
                                       const ContainerTarget &container, const SyncTarget &own) {
    std::vector<std::string> out;
    for (const LiveUpdateTargets &lu : all) {
        if (lu.via != self.via) continue;
        bool shares = false;
        for (const ContainerTarget &c : lu.containers) shares = shares || c.id == container.id;
        if (!shares) continue;
        for (const SyncTarget &t : lu.targets)
            if (!(lu.name == self.name && t == own)) out.push_back(t.container_path);
    }
    return out;
}

}  // namespace liveupdate::verify
