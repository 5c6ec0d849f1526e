#include "plugin/core/sync_targets.hpp"

#include <new>
#include <stdexcept>

#include "plugin/core/initial_sync.hpp"
#include "plugin/core/monitor.hpp"

namespace liveupdate {
namespace json = boost::json;

namespace {

bool finished(const SelectedContainer &c) {
    return !c.state.running || c.ref.id.empty() || c.pod_phase == "Succeeded" || c.pod_phase == "Failed";
}

std::variant<SyncTargets, SyncTargetsProblem> targets_of(const api::LiveUpdateSpec &spec, const ObjectLookup &lookup) {
    Monitor monitor;
    refresh_sources(monitor, spec, lookup);
    refresh_kubernetes(monitor, spec, lookup);
    refresh_docker_compose(monitor, spec, lookup);
    refresh_local_container(monitor, spec, lookup);
    auto resource = resource_of(monitor, spec);
    if (auto *why = std::get_if<std::string>(&resource)) return SyncTargetsProblem{false, std::move(*why)};
    const SelectedResource &selected = std::get<SelectedResource>(resource);
    SyncTargets out;
    out.via = selected.via;
    for (const SelectedContainer &sc : selected.containers) {
        if (!finished(sc)) out.containers.push_back(sc.ref);
    }
    std::vector<common::IgnoreDef> source_ignores;
    for (const auto &[name, source] : monitor.sources)
        source_ignores.insert(source_ignores.end(), source.ignores.begin(), source.ignores.end());
    out.filter = initial_sync_filter(source_ignores);
    for (const updater::CopyMapping &rule : sync_rules(spec)) out.targets.push_back(whole_rule_mapping(rule));
    return out;
}

}  // namespace

std::variant<SyncTargets, SyncTargetsProblem> sync_targets_of(const std::string &live_update,
                                                              const ObjectLookup &lookup) {
    try {
        const api::ObjectPtr object = lookup(api::Kind::LiveUpdate, live_update);
        if (!object) return SyncTargetsProblem{true, "LiveUpdate \"" + live_update + "\" not found"};
        const api::LiveUpdateSpec &spec = std::get<api::LiveUpdate>(object->body).spec;
        if (auto invalid = invalid_selector_message(spec)) return SyncTargetsProblem{false, *invalid};
        return targets_of(spec, lookup);
    } catch (const ObjectNotFound &e) {
        return SyncTargetsProblem{false, e.what()};
    } catch (const std::bad_alloc &) {
        throw;
    } catch (const std::exception &e) {
        return SyncTargetsProblem{false, "LiveUpdate \"" + live_update + "\": " + e.what()};
    }
}

json::object encode_sync_targets(const SyncTargets &targets) {
    json::array containers, paths;
    for (const updater::ContainerRef &c : targets.containers)
        containers.push_back(json::object{{"containerID", c.id},
                                          {"containerName", c.name},
                                          {"podName", c.pod},
                                          {"namespace", c.namespace_name},
                                          {"root", c.root},
                                          {"display", container_display_name(c.pod, c.name, c.id)}});
    for (const updater::CopyMapping &t : targets.targets)
        paths.push_back(json::object{{"local", t.local_path}, {"container", t.container_path}});
    return json::object{{"via", targets.via},
                        {"containers", std::move(containers)},
                        {"targets", std::move(paths)},
                        {"filter", common::to_json(targets.filter)}};
}

}  // namespace liveupdate
