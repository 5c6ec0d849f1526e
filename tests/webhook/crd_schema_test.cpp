// The generated CRDs against the plugin's own admission: no field the plugin
// reads is pruned, each has the type the plugin decodes, and what the
// plugin (or the cluster path rule) requires is required.
#include <boost/test/unit_test.hpp>

#include <string>
#include <vector>

#include "common/yaml_json.hpp"
#include "host/cluster/cluster_kinds.hpp"
#include "host/cluster/yaml_text.hpp"
#include "plugin/core/admission.hpp"

using namespace liveupdate::host::cluster;
namespace json = boost::json;

namespace {

const json::object &root_schema(const std::string &kind) {
    static std::map<std::string, json::object> crds;
    if (!crds.count(kind)) crds[kind] = custom_resource_definition(*find_cluster_kind(kind));
    return crds[kind].at("spec").at("versions").at(0).at("schema").at("openAPIV3Schema").as_object();
}

// "spec.syncs[0].containerPath" -> {"spec", "syncs", "[]", "containerPath"}
std::vector<std::string> steps_of(const std::string &path) {
    std::vector<std::string> steps;
    std::string current;
    for (std::size_t i = 0; i < path.size(); ++i) {
        if (path[i] == '.' || path[i] == '[') {
            if (!current.empty()) steps.push_back(current);
            current.clear();
            if (path[i] == '[') {
                steps.emplace_back("[]");
                i = path.find(']', i);
            }
        } else {
            current += path[i];
        }
    }
    if (!current.empty()) steps.push_back(current);
    return steps;
}

// The schema node at path, or nullptr.
const json::object *schema_at(const std::string &kind, const std::string &path) {
    const json::object *node = &root_schema(kind);
    for (const auto &step : steps_of(path)) {
        const json::value *next = step == "[]" ? node->if_contains("items") : [&]() -> const json::value * {
            const json::value *props = node->if_contains("properties");
            return props == nullptr ? nullptr : props->as_object().if_contains(step);
        }();
        if (next == nullptr) return nullptr;
        node = &next->as_object();
    }
    return node;
}

bool is_required(const std::string &kind, const std::string &path) {
    const std::size_t dot = path.rfind('.');
    const json::object *parent = schema_at(kind, path.substr(0, dot));
    if (parent == nullptr || !parent->contains("required")) return false;
    for (const auto &name : parent->at("required").as_array())
        if (name.as_string() == path.substr(dot + 1)) return true;
    return false;
}

std::string json_type(const json::value &v) {
    if (v.is_string()) return "string";
    if (v.is_bool()) return "boolean";
    if (v.is_int64() || v.is_uint64()) return "integer";
    if (v.is_array()) return "array";
    if (v.is_object()) return "object";
    return "other";
}

// Every field of a full object has a schema (nothing is pruned) of its JSON type.
void check_every_field(const std::string &kind, const json::value &v, const std::string &path) {
    if (v.is_object()) {
        for (const auto &member : v.as_object()) {
            if (path == "metadata" || (path.empty() && member.key() == "metadata")) continue;
            const std::string child = path.empty() ? std::string(member.key()) : path + "." + std::string(member.key());
            const json::object *schema = schema_at(kind, child);
            BOOST_TEST_CONTEXT(kind << " " << child) {
                BOOST_TEST_REQUIRE(schema != nullptr);
                BOOST_TEST(schema->at("type").as_string() == json_type(member.value()));
            }
            check_every_field(kind, member.value(), child);
        }
    } else if (v.is_array()) {
        for (const auto &item : v.as_array()) check_every_field(kind, item, path + "[0]");
    }
}

json::value &at_path(json::value &v, const std::string &path) {
    json::value *node = &v;
    for (const auto &step : steps_of(path)) node = step == "[]" ? &node->as_array()[0] : &node->as_object()[step];
    return *node;
}

// A LiveUpdate with every field the plugin reads.
json::value full_live_update() {
    return json::parse(R"({"apiVersion":"tilt.dev/v1alpha1","kind":"LiveUpdate","metadata":{"name":"web"},
      "spec":{"basePath":"/p","selector":{"kubernetes":{"discoveryName":"d","applyName":"a","containerName":"c"},
                "dockerCompose":{"service":"s"},"local":{"container":"l"}},
        "sources":[{"fileWatch":"fw","imageMap":"im"}],"stopPaths":["package.json"],
        "syncs":[{"localPath":"src","containerPath":"/app","syncBack":["package-lock.json"]}],
        "execs":[{"args":["make"],"triggerPaths":["src"],"echoOff":true,"user":"u","workingDir":"/w","env":["A=1"],
                  "privileged":false}],
        "restart":"always","restartPaths":["conf"],"initialSync":{}},
      "status":{"containers":[{"containerName":"c","containerID":"id","podName":"p","namespace":"n",
                  "lastFileTimeSynced":"2024-01-02T03:04:05.000000Z","lastExecError":"e",
                  "waiting":{"reason":"r","message":"m"}}],
                "failed":{"reason":"r","message":"m","lastTransitionTime":"2024-01-02T03:04:05.000000Z"}}})");
}

}  // namespace

BOOST_AUTO_TEST_SUITE(crd_schema)

BOOST_AUTO_TEST_CASE(the_kinds_the_plugin_reads_from_a_cluster) {
    for (const char *kind : {"LiveUpdate", "KubernetesDiscovery", "FileWatch", "ImageMap", "KubernetesApply"}) {
        BOOST_TEST_REQUIRE(find_cluster_kind(kind) != nullptr, kind);
        const json::object crd = custom_resource_definition(*find_cluster_kind(kind));
        BOOST_TEST(crd.at("apiVersion").as_string() == "apiextensions.k8s.io/v1");
        BOOST_TEST(crd.at("spec").at("group").as_string() == "tilt.dev");
        BOOST_TEST(crd.at("spec").at("scope").as_string() == "Namespaced");
        BOOST_TEST(crd.at("metadata").at("name").as_string() ==
                   std::string(crd.at("spec").at("names").at("plural").as_string()) + ".tilt.dev");
        BOOST_TEST(!crd.at("spec").at("names").at("shortNames").as_array().empty());
        const json::object &version = crd.at("spec").at("versions").at(0).as_object();
        BOOST_TEST(version.at("subresources").at("status").is_object());
        BOOST_TEST(!version.at("additionalPrinterColumns").as_array().empty());
    }
}

BOOST_AUTO_TEST_CASE(every_schema_node_is_structural) {
    for (const auto &kind : cluster_kinds()) {
        std::vector<const json::object *> pending{&root_schema(kind.kind)};
        while (!pending.empty()) {
            const json::object *node = pending.back();
            pending.pop_back();
            BOOST_TEST_REQUIRE(node->contains("type"), kind.kind);
            if (const json::value *props = node->if_contains("properties")) {
                BOOST_TEST(node->at("type").as_string() == "object");
                for (const auto &p : props->as_object()) pending.push_back(&p.value().as_object());
            }
            if (const json::value *items = node->if_contains("items")) {
                BOOST_TEST(node->at("type").as_string() == "array");
                pending.push_back(&items->as_object());
            }
            if (node->at("type").as_string() == "array") BOOST_TEST(node->contains("items"));
        }
    }
}

BOOST_AUTO_TEST_CASE(a_full_live_update_passes_the_plugin_and_keeps_every_field) {
    const json::value lu = full_live_update();
    const liveupdate::AdmissionResult admitted = liveupdate::admit(json::serialize(lu));
    BOOST_TEST(admitted.accepted, admitted.message);
    check_every_field("LiveUpdate", lu, "");
}

BOOST_AUTO_TEST_CASE(the_other_kinds_keep_every_field_the_plugin_reads) {
    check_every_field("FileWatch", json::parse(R"({"spec":{"watchedPaths":["/p"],"ignores":[{"basePath":"/p",
        "patterns":["*.o"]}]},"status":{"fileEvents":[{"time":"2024-01-02T03:04:05.000000Z","seenFiles":["/p/a"]}]}})"),
                      "");
    check_every_field("KubernetesDiscovery", json::parse(R"({"status":{"pods":[{"name":"p","namespace":"n",
        "createdAt":"2024-01-02T03:04:05Z","phase":"Running","containers":[{"name":"c","id":"i","image":"im","ready":true,
        "state":{"waiting":{"reason":"r"},"running":{"startedAt":"2024-01-02T03:04:05Z"},
        "terminated":{"startedAt":"2024-01-02T03:04:05Z","finishedAt":"2024-01-02T03:04:05Z","reason":"r","exitCode":1}}}],
        "ancestorUID":"u","podTemplateSpecHash":"h","owner":{"name":"o","kind":"ReplicaSet",
        "creationTimestamp":"2024-01-02T03:04:05Z"}}]}})"),
                      "");
    check_every_field("ImageMap", json::parse(R"({"status":{"image":"i","imageFromCluster":"c",
        "buildStartTime":"2024-01-02T03:04:05.000000Z"}})"),
                      "");
    check_every_field("KubernetesApply", json::parse(R"({"status":{"lastApplyStartTime":"2024-01-02T03:04:05.000000Z",
        "resultYAML":"y"}})"),
                      "");
}

BOOST_AUTO_TEST_CASE(a_field_of_the_wrong_type_is_refused_by_the_plugin_and_the_schema) {
    const std::vector<std::pair<std::string, json::value>> cases{
        {"spec.basePath", 5},
        {"spec.selector.kubernetes.discoveryName", 5},
        {"spec.selector.kubernetes.containerName", true},
        {"spec.selector.dockerCompose.service", 5},
        {"spec.sources[0].fileWatch", 5},
        {"spec.stopPaths", "x"},
        {"spec.syncs[0].localPath", 5},
        {"spec.syncs[0].containerPath", 5},
        {"spec.syncs[0].syncBack", "package-lock.json"},
        {"spec.execs[0].args", "make"},
        {"spec.execs[0].echoOff", "yes"},
        {"spec.execs[0].privileged", 1},
        {"spec.execs[0].env", 5},
        {"spec.restart", 5},
        {"spec.restartPaths", 5},
        {"spec.initialSync", 5},
        {"status.containers[0].podName", 5},
        {"status.failed.reason", 5},
    };
    for (const auto &[path, wrong] : cases) {
        BOOST_TEST_CONTEXT(path) {
            json::value lu = full_live_update();
            at_path(lu, path) = wrong;
            const liveupdate::AdmissionResult admitted = liveupdate::admit(json::serialize(lu));
            BOOST_TEST(!admitted.accepted);
            BOOST_TEST_REQUIRE(admitted.errors.size() == 1u);
            BOOST_TEST(steps_of(admitted.errors[0].field) == steps_of(path));
            const json::object *schema = schema_at("LiveUpdate", path);
            BOOST_TEST_REQUIRE(schema != nullptr);
            BOOST_TEST(schema->at("type").as_string() != json_type(wrong));
        }
    }
}

BOOST_AUTO_TEST_CASE(what_the_plugin_requires_is_required) {
    json::value lu = full_live_update();
    lu.at("spec").at("selector").at("kubernetes").as_object().erase("discoveryName");
    const liveupdate::AdmissionResult admitted = liveupdate::admit(json::serialize(lu));
    BOOST_TEST_REQUIRE(admitted.errors.size() == 1u);
    BOOST_TEST(admitted.errors[0].field == "spec.selector.kubernetes.discoveryName");
    BOOST_TEST(is_required("LiveUpdate", "spec.selector.kubernetes.discoveryName"));
    // The cluster path rule requires basePath; Tilt requires a sync's both paths and an exec's args.
    for (const char *path :
         {"spec.basePath", "spec.syncs[0].localPath", "spec.syncs[0].containerPath", "spec.execs[0].args"})
        BOOST_TEST(is_required("LiveUpdate", path), path);
}

BOOST_AUTO_TEST_CASE(live_update_columns_show_state_reason_containers_and_last_sync) {
    std::map<std::string, std::pair<std::string, int>> columns;
    for (const auto &c : find_cluster_kind("LiveUpdate")->columns) columns[c.json_path] = {c.type, c.priority};
    BOOST_TEST(columns.count(".status.failed.reason"));
    BOOST_TEST(columns.count(".status.containers[0].waiting.reason"));
    BOOST_TEST(columns.count(".status.containers[0].containerName"));
    BOOST_TEST(columns[".status.containers[0].lastFileTimeSynced"].first == "date");
    BOOST_TEST(columns[".status.failed.message"].second == 1);  // -o wide
    BOOST_TEST(columns[".status.syncBackConflictCount"].first == "integer");
    BOOST_TEST(columns[".status.syncBackConflictCount"].second == 0);
    for (const char *path : {"status.syncBackConflicts[0].container", "status.syncBackConflicts[0].path",
                             "status.syncBackConflicts[0].kind"})
        BOOST_TEST(schema_at("LiveUpdate", path) != nullptr, path);
    for (const auto &[path, column] : columns)
        if (path.rfind(".metadata.", 0) != 0) BOOST_TEST(schema_at("LiveUpdate", path.substr(1)) != nullptr, path);
}

BOOST_AUTO_TEST_CASE(the_yaml_reads_back_as_the_same_json) {
    std::vector<json::value> crds;
    for (const auto &kind : cluster_kinds()) crds.emplace_back(custom_resource_definition(kind));
    const std::vector<json::value> read = liveupdate::common::yaml_documents(yaml_documents(crds));
    BOOST_TEST_REQUIRE(read.size() == crds.size());
    for (std::size_t i = 0; i < crds.size(); ++i) BOOST_TEST(read[i] == crds[i]);
}

BOOST_AUTO_TEST_SUITE_END()
