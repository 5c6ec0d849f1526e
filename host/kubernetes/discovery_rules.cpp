#include "host/kubernetes/discovery_rules.hpp"

#include <algorithm>
#include <stdexcept>

#include "common/json_fields.hpp"

namespace liveupdate::host::kubernetes {
namespace {

namespace json = boost::json;
using common::array_field;
using common::object_field;
using common::string_field;

LabelSelector parse_selector(const json::value &v, const std::string &path) {
    LabelSelector s;
    const auto &o = common::expect_object(v, path);
    s.match_labels = common::string_map_field(o, "matchLabels", path);
    if (const auto *me = array_field(o, "matchExpressions", path)) {
        for (std::size_t i = 0; i < me->size(); ++i) {
            const std::string p = common::index(path + ".matchExpressions", i);
            const auto &e = common::expect_object((*me)[i], p);
            LabelRequirement r;
            r.key = string_field(e, "key", p);
            r.op = string_field(e, "operator", p);
            if (r.key.empty()) throw std::invalid_argument(p + ".key: required");
            if (r.op != "In" && r.op != "NotIn" && r.op != "Exists" && r.op != "DoesNotExist")
                throw std::invalid_argument(p + ".operator: must be In, NotIn, Exists or DoesNotExist");
            r.values = common::string_array_field(e, "values", p);
            if ((r.op == "In" || r.op == "NotIn") && r.values.empty())
                throw std::invalid_argument(p + ".values: required for " + r.op);
            s.match_expressions.push_back(std::move(r));
        }
    }
    return s;
}

std::string container_id(const std::string &raw) {
    const auto scheme = raw.find("://");
    return scheme == std::string::npos ? raw : raw.substr(scheme + 3);
}

// Times are left out when Kubernetes has none yet, as Go's omitempty would.
json::object times(std::initializer_list<std::pair<const char *, std::string>> fields) {
    json::object out;
    for (const auto &[k, v] : fields)
        if (!v.empty()) out[k] = v;
    return out;
}

json::object container_state(const json::object *state, const std::string &path) {
    json::object out;
    if (state == nullptr) return out;
    if (const auto *w = object_field(*state, "waiting", path))
        out["waiting"] = json::object{{"reason", string_field(*w, "reason", path + ".waiting")}};
    if (const auto *r = object_field(*state, "running", path))
        out["running"] = times({{"startedAt", string_field(*r, "startedAt", path + ".running")}});
    if (const auto *t = object_field(*state, "terminated", path)) {
        const std::string at = path + ".terminated";
        json::object term = times(
            {{"startedAt", string_field(*t, "startedAt", at)}, {"finishedAt", string_field(*t, "finishedAt", at)}});
        term["reason"] = string_field(*t, "reason", at);
        term["exitCode"] = common::int_field(*t, "exitCode", at);
        out["terminated"] = std::move(term);
    }
    return out;
}

// Containers in spec order, with what their statuses say.
json::array containers(const json::object &pod, const char *spec_key, const char *status_key) {
    json::array out;
    const auto *specs = array_field(pod, {"spec", spec_key});
    const auto *statuses = array_field(pod, {"status", status_key});
    if (specs == nullptr) return out;
    const std::string specs_path = std::string("spec.") + spec_key;
    const std::string statuses_path = std::string("status.") + status_key;
    for (std::size_t i = 0; i < specs->size(); ++i) {
        const auto &c = common::expect_object((*specs)[i], common::index(specs_path, i));
        const std::string name = string_field(c, "name", common::index(specs_path, i));
        json::object entry{
            {"name", name},   {"id", ""},      {"image", string_field(c, "image", common::index(specs_path, i))},
            {"ready", false}, {"restarts", 0}, {"state", json::object{}}};
        for (std::size_t j = 0; statuses != nullptr && j < statuses->size(); ++j) {
            const std::string p = common::index(statuses_path, j);
            const auto &so = common::expect_object((*statuses)[j], p);
            if (string_field(so, "name", p) != name) continue;
            entry["id"] = container_id(string_field(so, "containerID", p));
            if (const std::string image = string_field(so, "image", p); !image.empty()) entry["image"] = image;
            entry["ready"] = common::bool_field(so, "ready", p);
            entry["restarts"] = common::int_field(so, "restartCount", p);
            entry["state"] = container_state(object_field(so, "state", p), p + ".state");
        }
        out.push_back(std::move(entry));
    }
    return out;
}

// kubectl's STATUS column, briefly: a waiting or terminated container's reason wins.
std::string status_text(const json::object &pod, const json::array &cs) {
    if (common::member(pod, {"metadata", "deletionTimestamp"}) != nullptr) return "Terminating";
    std::string text = string_field(pod, {"status", "reason"});
    if (text.empty()) text = string_field(pod, {"status", "phase"});
    // cs is ours (containers() above): every entry has a state object.
    for (const auto &c : cs) {
        const auto &state = c.as_object().at("state").as_object();
        if (const std::string waiting = string_field(state, {"waiting", "reason"}); !waiting.empty()) return waiting;
        if (const std::string terminated = string_field(state, {"terminated", "reason"}); !terminated.empty())
            text = terminated;
    }
    return text;
}

}  // namespace

DiscoverySpec discovery_spec_of(const json::object &object) try {
    DiscoverySpec spec;
    const auto *s = object_field(object, "spec", "");
    if (s == nullptr) return spec;
    if (const auto *w = array_field(*s, "watches", "spec")) {
        for (std::size_t i = 0; i < w->size(); ++i) {
            const std::string p = common::index("spec.watches", i);
            const auto &e = common::expect_object((*w)[i], p);
            WatchRef ref{string_field(e, "namespace", p), string_field(e, "uid", p), string_field(e, "name", p)};
            if (ref.namespace_name.empty()) throw std::invalid_argument(p + ".namespace: required");
            spec.watches.push_back(std::move(ref));
        }
    }
    if (const auto *x = array_field(*s, "extraSelectors", "spec"))
        for (std::size_t i = 0; i < x->size(); ++i)
            spec.extra_selectors.push_back(parse_selector((*x)[i], common::index("spec.extraSelectors", i)));
    return spec;
} catch (const common::DecodeError &e) {
    throw std::invalid_argument(e.what());
}

std::set<std::string> namespaces_of(const DiscoverySpec &spec) {
    std::set<std::string> out;
    for (const auto &w : spec.watches) out.insert(w.namespace_name);
    if (out.empty() && !spec.extra_selectors.empty()) out.insert("default");
    return out;
}

std::string selector_query(const LabelSelector &s) {
    std::string q;
    const auto add = [&q](const std::string &part) { q += (q.empty() ? "" : ",") + part; };
    for (const auto &[k, v] : s.match_labels) add(std::string(k).append("=").append(v));
    for (const auto &r : s.match_expressions) {
        if (r.op == "Exists")
            add(r.key);
        else if (r.op == "DoesNotExist")
            add("!" + r.key);
        else {
            std::string values;
            for (const auto &v : r.values) values += (values.empty() ? "" : ",") + v;
            add(r.key + (r.op == "In" ? " in (" : " notin (") + values + ")");
        }
    }
    return q;
}

bool selector_matches(const LabelSelector &s, const std::map<std::string, std::string> &labels) {
    // An empty selector matches nothing here: Tilt never watches a whole namespace by accident.
    if (s.match_labels.empty() && s.match_expressions.empty()) return false;
    for (const auto &[k, v] : s.match_labels) {
        const auto found = labels.find(k);
        if (found == labels.end() || found->second != v) return false;
    }
    for (const auto &r : s.match_expressions) {
        const auto found = labels.find(r.key);
        const bool in =
            found != labels.end() && std::find(r.values.begin(), r.values.end(), found->second) != r.values.end();
        if (r.op == "In" && !in) return false;
        if (r.op == "NotIn" && in) return false;
        if (r.op == "Exists" && found == labels.end()) return false;
        if (r.op == "DoesNotExist" && found != labels.end()) return false;
    }
    return true;
}

std::optional<OwnerRef> controller_owner(const json::object &object) {
    const auto *owners = array_field(object, {"metadata", "ownerReferences"});
    for (std::size_t i = 0; owners != nullptr && i < owners->size(); ++i) {
        const std::string p = common::index("metadata.ownerReferences", i);
        const auto &o = common::expect_object((*owners)[i], p);
        if (!common::bool_field(o, "controller", p)) continue;
        return OwnerRef{string_field(o, "kind", p), string_field(o, "name", p), string_field(o, "uid", p),
                        string_field(o, "apiVersion", p)};
    }
    return std::nullopt;
}

PodMatch match_pod(const DiscoverySpec &spec, const json::object &pod, const std::vector<Ancestor> &ancestors) {
    const std::string ns = string_field(pod, {"metadata", "namespace"});
    const std::string uid = string_field(pod, {"metadata", "uid"});
    for (const auto &w : spec.watches) {
        if (w.uid.empty() || w.namespace_name != ns) continue;
        if (w.uid == uid) return {true, w.uid};
        for (const auto &a : ancestors)
            if (a.ref.uid == w.uid) return {true, w.uid};
    }
    const auto *meta = object_field(pod, {"metadata"});
    const std::map<std::string, std::string> labels =
        meta != nullptr ? common::string_map_field(*meta, "labels", "metadata") : std::map<std::string, std::string>();
    const auto namespaces = namespaces_of(spec);
    if (!namespaces.contains(ns)) return {};
    for (const auto &s : spec.extra_selectors)
        if (selector_matches(s, labels)) return {true, ""};
    return {};
}

json::object pod_status_entry(const json::object &pod, const std::string &ancestor_uid,
                              const std::vector<Ancestor> &ancestors) {
    json::object out;
    out["name"] = string_field(pod, {"metadata", "name"});
    out["namespace"] = string_field(pod, {"metadata", "namespace"});
    if (const std::string created = string_field(pod, {"metadata", "creationTimestamp"}); !created.empty())
        out["createdAt"] = created;
    out["phase"] = string_field(pod, {"status", "phase"});
    out["deleting"] = common::member(pod, {"metadata", "deletionTimestamp"}) != nullptr;
    json::array cs = containers(pod, "containers", "containerStatuses");
    json::array init = containers(pod, "initContainers", "initContainerStatuses");
    out["status"] = status_text(pod, cs);
    out["containers"] = std::move(cs);
    if (!init.empty()) out["initContainers"] = std::move(init);
    if (const std::string hash = string_field(pod, {"metadata", "labels", "pod-template-hash"}); !hash.empty())
        out["podTemplateSpecHash"] = hash;
    if (!ancestor_uid.empty()) out["ancestorUID"] = ancestor_uid;
    if (!ancestors.empty()) {
        const Ancestor &top = ancestors.back();
        json::object owner = times({{"creationTimestamp", top.creation_timestamp}});
        owner["name"] = top.ref.name;
        owner["apiVersion"] = top.ref.api_version;
        owner["kind"] = top.ref.kind;
        out["owner"] = std::move(owner);
    }
    return out;
}

}  // namespace liveupdate::host::kubernetes
