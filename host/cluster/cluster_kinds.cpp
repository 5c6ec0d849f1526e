#include "host/cluster/cluster_kinds.hpp"

#include "host/cluster/kind_schemas.hpp"

namespace liveupdate::host::cluster {
namespace json = boost::json;

namespace {

PrinterColumn age() { return {"Age", "date", ".metadata.creationTimestamp", "", 0}; }

std::vector<ClusterKind> make_kinds() {
    std::vector<ClusterKind> kinds;
    kinds.push_back(ClusterKind{
        "LiveUpdate",
        "liveupdates",
        "liveupdate",
        {"lu"},
        "Copies changed files into running containers and runs commands there (Tilt's LiveUpdate).",
        live_update_spec(),
        live_update_status(),
        {{"Failed", "string", ".status.failed.reason", "Why updates fail (empty: not failing)", 0},
         {"Waiting", "string", ".status.containers[0].waiting.reason", "Why changes wait (empty: not waiting)", 0},
         {"Container", "string", ".status.containers[0].containerName", "The container updated", 0},
         {"Last Sync", "date", ".status.containers[0].lastFileTimeSynced", "The last file change synced", 0},
         {"Conflicts", "integer", ".status.syncBackConflictCount", "Open sync-back conflicts", 0},
         age(),
         {"Pod", "string", ".status.containers[0].podName", "Its pod", 1},
         {"Message", "string", ".status.failed.message", "What fails", 1},
         {"Exec Error", "string", ".status.containers[0].lastExecError", "The last execs' error", 1},
         {"Discovery", "string", ".spec.selector.kubernetes.discoveryName", "The KubernetesDiscovery", 1},
         {"Base Path", "string", ".spec.basePath", "Relative to the project folder", 1}}});
    kinds.push_back(ClusterKind{"FileWatch",
                                "filewatches",
                                "filewatch",
                                {"fw"},
                                "Watches paths for changes (Tilt's FileWatch).",
                                file_watch_spec(),
                                file_watch_status(),
                                {{"Paths", "string", ".spec.watchedPaths", "What is watched", 0},
                                 {"Last Event", "date", ".status.lastEventTime", "The last change seen", 0},
                                 age(),
                                 {"Error", "string", ".status.error", "Why watching fails", 1}}});
    kinds.push_back(ClusterKind{"KubernetesDiscovery",
                                "kubernetesdiscoverys",
                                "kubernetesdiscovery",
                                {"kd"},
                                "Finds pods and their containers (Tilt's KubernetesDiscovery).",
                                kubernetes_discovery_spec(),
                                kubernetes_discovery_status(),
                                {{"Pod", "string", ".status.pods[0].name", "The first pod found", 0},
                                 {"Phase", "string", ".status.pods[0].phase", "Its phase", 0},
                                 age(),
                                 {"Namespace", "string", ".status.pods[0].namespace", "Its namespace", 1}}});
    kinds.push_back(ClusterKind{"ImageMap",
                                "imagemaps",
                                "imagemap",
                                {"im"},
                                "The image a build produced (Tilt's ImageMap).",
                                image_map_spec(),
                                image_map_status(),
                                {{"Image", "string", ".status.image", "The image built", 0},
                                 {"Build Start", "date", ".status.buildStartTime", "When its build started", 0},
                                 age()}});
    kinds.push_back(ClusterKind{"KubernetesApply",
                                "kubernetesapplys",
                                "kubernetesapply",
                                {"ka"},
                                "Objects deployed to a cluster (Tilt's KubernetesApply).",
                                kubernetes_apply_spec(),
                                kubernetes_apply_status(),
                                {{"Last Apply", "date", ".status.lastApplyStartTime", "When the last apply started", 0},
                                 age(),
                                 {"Error", "string", ".status.error", "Why the last apply failed", 1}}});
    return kinds;
}

json::array strings(const std::vector<std::string> &items) {
    json::array out;
    for (const auto &item : items) out.emplace_back(item);
    return out;
}

json::array columns_of(const std::vector<PrinterColumn> &columns) {
    json::array out;
    for (const auto &c : columns) {
        json::object column{{"name", c.name}, {"type", c.type}, {"jsonPath", c.json_path}};
        if (!c.description.empty()) column["description"] = c.description;
        if (c.priority != 0) column["priority"] = c.priority;
        out.push_back(std::move(column));
    }
    return out;
}

}  // namespace

const std::vector<ClusterKind> &cluster_kinds() {
    static const std::vector<ClusterKind> kinds = make_kinds();
    return kinds;
}

const ClusterKind *find_cluster_kind(std::string_view kind) {
    for (const auto &k : cluster_kinds())
        if (k.kind == kind) return &k;
    return nullptr;
}

json::object custom_resource_definition(const ClusterKind &kind) {
    json::object schema{{"type", "object"},
                        {"description", kind.description},
                        {"properties", json::object{{"apiVersion", json::object{{"type", "string"}}},
                                                    {"kind", json::object{{"type", "string"}}},
                                                    {"metadata", json::object{{"type", "object"}}},
                                                    {"spec", kind.spec},
                                                    {"status", kind.status}}}};
    json::object version{{"name", kVersion},
                         {"served", true},
                         {"storage", true},
                         {"schema", json::object{{"openAPIV3Schema", std::move(schema)}}},
                         {"subresources", json::object{{"status", json::object{}}}},
                         {"additionalPrinterColumns", columns_of(kind.columns)}};
    json::object names{
        {"kind", kind.kind},         {"listKind", kind.kind + "List"},          {"plural", kind.plural},
        {"singular", kind.singular}, {"shortNames", strings(kind.short_names)}, {"categories", json::array{"tilt"}}};
    return json::object{
        {"apiVersion", "apiextensions.k8s.io/v1"},
        {"kind", "CustomResourceDefinition"},
        {"metadata", json::object{{"name", kind.plural + "." + std::string(kGroup)},
                                  {"labels", json::object{{"app.kubernetes.io/managed-by", "lu-host"}}}}},
        {"spec", json::object{{"group", kGroup},
                              {"scope", "Namespaced"},
                              {"names", std::move(names)},
                              {"versions", json::array{std::move(version)}}}}};
}

}  // namespace liveupdate::host::cluster
