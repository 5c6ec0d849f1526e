#include "host/webhook/pod_injection.hpp"

#include <algorithm>
#include <set>

#include "common/json_fields.hpp"
#include "common/text_format.hpp"

namespace liveupdate::host::webhook {
namespace json = boost::json;

namespace {

constexpr std::string_view kNamespaceEnabled = "enabled";

// RFC 6901: "~" and "/" inside a key.
std::string pointer_key(std::string_view key) {
    std::string out;
    for (const char c : key) {
        if (c == '~')
            out += "~0";
        else if (c == '/')
            out += "~1";
        else
            out += c;
    }
    return out;
}

json::object op(std::string_view name, const std::string &path, json::value value) {
    return json::object{{"op", name}, {"path", path}, {"value", std::move(value)}};
}

// Appends to the array at path, or creates it with the one item.
json::object append(const json::object &owner, std::string_view key, const std::string &path, json::value item) {
    if (common::member(owner, key) == nullptr) return op("add", path, json::array{std::move(item)});
    return op("add", path + "/-", std::move(item));
}

std::string trimmed(std::string_view text) {
    const std::size_t first = text.find_first_not_of(" \t");
    if (first == std::string_view::npos) return {};
    return std::string(text.substr(first, text.find_last_not_of(" \t") - first + 1));
}

std::string go_quoted(std::string_view text) { return common::go_quote(std::string(text)); }

// A pod's own word, from its annotation or the label the configuration's
// objectSelector matches: true, false, or nothing said.
std::optional<bool> pod_choice(const std::map<std::string, std::string> &annotations,
                               const std::map<std::string, std::string> &labels, std::vector<std::string> &warnings) {
    std::optional<bool> out;
    for (const auto *place : {&labels, &annotations}) {
        const auto found = place->find(std::string(kInjectKey));
        if (found == place->end()) continue;
        if (found->second == "true" || found->second == "false") {
            out = found->second == "true";  // the annotation, read last, has the last word
            continue;
        }
        warnings.push_back(std::string(place == &labels ? "label " : "annotation ") + std::string(kInjectKey) + ": " +
                           go_quoted(found->second) + " is neither \"true\" nor \"false\"; the namespace decides");
    }
    return out;
}

bool namespace_consents(const PodNamespace &ns) {
    if (!ns.labels) return true;
    const auto found = ns.labels->find(std::string(kInjectKey));
    return found != ns.labels->end() && found->second == kNamespaceEnabled;
}

std::string base_name(std::string_view path) {
    const std::size_t slash = path.rfind('/');
    return std::string(slash == std::string_view::npos ? path : path.substr(slash + 1));
}

// The webhook's own pods run `lu-host webhook` (deploy/webhook): injecting
// them would make the webhook's start wait for itself.
bool runs_the_webhook(const json::object &spec) {
    for (const std::string_view list : {"containers", "initContainers"}) {
        const json::array *containers = common::array_field(spec, list, "spec");
        if (containers == nullptr) continue;
        for (std::size_t i = 0; i < containers->size(); ++i) {
            const std::string path = common::index("spec." + std::string(list), i);
            const json::object &c = common::expect_object((*containers)[i], path);
            std::vector<std::string> argv = common::string_array_field(c, "command", path);
            for (auto &arg : common::string_array_field(c, "args", path)) argv.push_back(std::move(arg));
            for (std::size_t a = 0; a + 1 < argv.size(); ++a)
                if (base_name(argv[a]) == "lu-host" && argv[a + 1] == "webhook") return true;
        }
    }
    return false;
}

bool has_volume(const json::object &spec, std::string_view name) {
    const json::array *volumes = common::array_field(spec, "volumes", "spec");
    if (volumes == nullptr) return false;
    for (std::size_t i = 0; i < volumes->size(); ++i)
        if (common::string_field(common::expect_object((*volumes)[i], common::index("spec.volumes", i)), "name",
                                 "spec.volumes") == name)
            return true;
    return false;
}

bool already_injected(const json::object &spec) { return has_volume(spec, kAgentVolume); }

// The container sets the variable itself: its word stands.
bool sets_variable(const json::object &container, std::string_view variable, const std::string &path) {
    const json::array *env = common::array_field(container, "env", path);
    if (env == nullptr) return false;
    for (std::size_t i = 0; i < env->size(); ++i) {
        const std::string at = common::index(path + ".env", i);
        if (common::string_field(common::expect_object((*env)[i], at), "name", at) == variable) return true;
    }
    return false;
}

// The containers' names chosen by liveupdate.dev/containers (all without it).
std::set<std::string> chosen_containers(const std::map<std::string, std::string> &annotations,
                                        const std::vector<std::string> &names, std::vector<std::string> &warnings) {
    const auto found = annotations.find(std::string(kContainersAnnotation));
    if (found == annotations.end()) return {names.begin(), names.end()};
    std::set<std::string> chosen;
    std::string unknown;
    std::string_view rest = found->second;
    while (true) {
        const std::size_t comma = rest.find(',');
        const std::string name = trimmed(rest.substr(0, comma));
        if (!name.empty()) {
            if (std::find(names.begin(), names.end(), name) != names.end())
                chosen.insert(name);
            else
                unknown += (unknown.empty() ? "" : ", ") + go_quoted(name);
        }
        if (comma == std::string_view::npos) break;
        rest = rest.substr(comma + 1);
    }
    if (!unknown.empty())
        warnings.push_back("annotation " + std::string(kContainersAnnotation) + ": no container named " + unknown +
                           " in this pod");
    if (chosen.empty())
        warnings.push_back("annotation " + std::string(kContainersAnnotation) + ": " + go_quoted(found->second) +
                           " names none of this pod's containers; lu-agent is not injected");
    return chosen;
}

bool wants_restart(const std::map<std::string, std::string> &annotations, std::vector<std::string> &warnings) {
    const auto found = annotations.find(std::string(kRestartAnnotation));
    if (found == annotations.end()) return false;
    if (found->second == "process") return true;
    warnings.push_back("annotation " + std::string(kRestartAnnotation) + ": " + go_quoted(found->second) +
                       " is not \"process\" (the only restart the webhook sets up); no command is wrapped");
    return false;
}

json::object init_container(const InjectionOptions &options) {
    // Restricted by the Pod Security Standards, so that hardened namespaces admit it.
    json::object security{{"runAsNonRoot", true},
                          {"runAsUser", 65534},
                          {"allowPrivilegeEscalation", false},
                          {"readOnlyRootFilesystem", true},
                          {"capabilities", json::object{{"drop", json::array{"ALL"}}}},
                          {"seccompProfile", json::object{{"type", "RuntimeDefault"}}}};
    return json::object{
        {"name", kAgentInitContainer},
        {"image", options.agent_image},
        {"imagePullPolicy", "IfNotPresent"},
        {"command", json::array{"cp", "/lu-agent", injected_agent_path(options)}},
        {"volumeMounts", json::array{json::object{{"name", kAgentVolume}, {"mountPath", options.agent_folder}}}},
        // Limits too: a namespace's ResourceQuota may ask every container for them.
        {"resources", json::object{{"requests", json::object{{"cpu", "10m"}, {"memory", "16Mi"}}},
                                   {"limits", json::object{{"cpu", "100m"}, {"memory", "32Mi"}}}}},
        {"securityContext", std::move(security)}};
}

// lu-agent from the namespace's ConfigMap, executable by any user. A wrapped
// command cannot start without it: then the pod waits for the ConfigMap
// (the kubelet's event names it) rather than failing to start.
json::object agent_configmap_volume(const InjectionOptions &options, bool required) {
    return json::object{
        {"name", kAgentVolume},
        {"configMap",
         json::object{{"name", options.agent_configmap},
                      {"items", json::array{json::object{{"key", kAgentConfigMapKey},
                                                         {"path", base_name(injected_agent_path(options))}}}},
                      {"defaultMode", 0555},
                      {"optional", !required}}}};
}

// Whether restart: process will wrap the command of a chosen container.
bool wraps_a_command(const json::array &containers, const std::set<std::string> &chosen,
                     const std::vector<std::string> &names, bool restart) {
    if (!restart) return false;
    for (std::size_t i = 0; i < containers.size(); ++i)
        if (chosen.count(names[i]) != 0 &&
            !common::string_array_field(containers[i].as_object(), "command", common::index("spec.containers", i))
                 .empty())
            return true;
    return false;
}

bool mounts_agent(const json::object &container, const std::string &path) {
    const json::array *mounts = common::array_field(container, "volumeMounts", path);
    if (mounts == nullptr) return false;
    for (std::size_t i = 0; i < mounts->size(); ++i) {
        const std::string at = common::index(path + ".volumeMounts", i);
        if (common::string_field(common::expect_object((*mounts)[i], at), "name", at) == kAgentVolume) return true;
    }
    return false;
}

Injection plan(const json::object &pod, const PodNamespace &ns, const InjectionOptions &options) {
    Injection out;
    if (ns.name == "kube-system") return out;
    const json::object *spec = common::object_field(pod, {"spec"});
    if (spec == nullptr) return out;
    // Called again (reinvocationPolicy IfNeeded: another webhook changed the
    // pod after us), only containers added since get their mount; what was
    // said the first time is not said again.
    const bool again = already_injected(*spec);
    std::vector<std::string> said_before;
    std::vector<std::string> &warnings = again ? said_before : out.warnings;
    const json::object *meta = common::object_field(pod, {"metadata"});
    const json::object empty;
    const auto annotations = common::string_map_field(meta != nullptr ? *meta : empty, "annotations", "metadata");
    const auto labels = common::string_map_field(meta != nullptr ? *meta : empty, "labels", "metadata");
    const std::optional<bool> choice = pod_choice(annotations, labels, warnings);
    if (choice == false || (!choice && !namespace_consents(ns))) return out;
    if (runs_the_webhook(*spec)) return out;
    if (!again && options.agent_image.empty() && options.agent_configmap.empty()) {
        out.warnings.push_back(
            "lu-agent is not injected: lu-host webhook runs without --agent-image or --agent-configmap");
        return out;
    }
    const json::array *containers = common::array_field(*spec, "containers", "spec");
    if (containers == nullptr) return out;
    std::vector<std::string> names;
    for (std::size_t i = 0; i < containers->size(); ++i) {
        const std::string path = common::index("spec.containers", i);
        names.push_back(common::string_field(common::expect_object((*containers)[i], path), "name", path));
    }
    const std::set<std::string> chosen = chosen_containers(annotations, names, warnings);
    if (chosen.empty()) return out;
    const bool restart = wants_restart(annotations, warnings);

    if (!again && !options.agent_configmap.empty()) {
        out.patch.push_back(
            append(*spec, "volumes", "/spec/volumes",
                   agent_configmap_volume(options, wraps_a_command(*containers, chosen, names, restart))));
    } else if (!again) {
        out.patch.push_back(
            append(*spec, "volumes", "/spec/volumes",
                   json::object{{"name", kAgentVolume}, {"emptyDir", json::object{{"sizeLimit", "32Mi"}}}}));
        out.patch.push_back(append(*spec, "initContainers", "/spec/initContainers", init_container(options)));
    }
    bool run_volume_added = false;
    for (std::size_t i = 0; i < containers->size(); ++i) {
        const json::object &container = (*containers)[i].as_object();
        const std::string field = common::index("spec.containers", i);
        if (chosen.count(names[i]) == 0 || mounts_agent(container, field)) continue;
        const std::string path = "/spec/containers/" + std::to_string(i);
        out.patch.push_back(
            append(container, "volumeMounts", path + "/volumeMounts",
                   json::object{{"name", kAgentVolume}, {"mountPath", options.agent_folder}, {"readOnly", true}}));
        if (!restart) continue;
        const std::vector<std::string> command = common::string_array_field(container, "command", field);
        if (command.empty()) {
            out.warnings.push_back("container " + go_quoted(names[i]) +
                                   " has no command in the pod spec, so the webhook cannot know its image's "
                                   "entrypoint and does not wrap it for " +
                                   std::string(kRestartAnnotation) + ": process; give its command in the pod spec");
            continue;
        }
        // Only the command: the container's args follow it as they did.
        json::array wrapped{json::string(injected_agent_path(options)), "supervise", "--"};
        for (const auto &word : command) wrapped.emplace_back(word);
        out.patch.push_back(op("replace", path + "/command", std::move(wrapped)));
        if (sets_variable(container, kSuperviseSocketVariable, field)) continue;
        if (!run_volume_added && !has_volume(*spec, kRunVolume)) {
            // After the agent's volume, which this patch may add first.
            json::object run{{"name", kRunVolume}, {"emptyDir", json::object{{"sizeLimit", "1Mi"}}}};
            out.patch.push_back(op("add", "/spec/volumes/-", std::move(run)));
            run_volume_added = true;
        }
        // The mount array exists now: the agent's mount was added to it above.
        out.patch.push_back(
            op("add", path + "/volumeMounts/-",
               json::object{{"name", kRunVolume}, {"mountPath", options.run_folder}, {"subPath", names[i]}}));
        out.patch.push_back(append(
            container, "env", path + "/env",
            json::object{{"name", kSuperviseSocketVariable}, {"value", options.run_folder + "/supervise.sock"}}));
    }
    if (again) return out;
    const std::string injected_from =
        options.agent_configmap.empty() ? options.agent_image : "configmap/" + options.agent_configmap;
    const std::string annotation_path = "/metadata/annotations";
    if (meta == nullptr)
        out.patch.push_back(
            op("add", "/metadata", json::object{{"annotations", json::object{{kInjectedAnnotation, injected_from}}}}));
    else if (common::member(*meta, "annotations") == nullptr)
        out.patch.push_back(op("add", annotation_path, json::object{{kInjectedAnnotation, injected_from}}));
    else
        out.patch.push_back(
            op("add", annotation_path + "/" + pointer_key(kInjectedAnnotation), json::string(injected_from)));
    return out;
}

}  // namespace

std::string injected_agent_path(const InjectionOptions &options) { return options.agent_folder + "/lu-agent"; }

Injection plan_injection(const json::value &pod, const PodNamespace &ns, const InjectionOptions &options) {
    if (!pod.is_object()) return Injection{{}, {"lu-agent is not injected: the pod is not a JSON object"}};
    try {
        return plan(pod.as_object(), ns, options);
    } catch (const common::DecodeError &e) {
        return Injection{{}, {std::string("lu-agent is not injected: ") + e.what()}};
    }
}

}  // namespace liveupdate::host::webhook
