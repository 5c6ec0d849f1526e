#include "host/kubernetes/discovery_rules.hpp"

#include <algorithm>
#include <stdexcept>

#include "common/json_fields.hpp"

namespace liveupdate::host::kubernetes {
namespace {

namespace json = boost::json;
using common::array_at;
using common::object_at;
using common::text_at;

std::string required_string(const json::value &v, const std::string &field) {
    if (!v.is_string()) throw std::invalid_argument(field + ": must be a string");
    return std::string(v.as_string());
}

LabelSelector parse_selector(const json::value &v, const std::string &path) {
    if (!v.is_object()) throw std::invalid_argument(path + ": must be an object");
    LabelSelector s;
    const auto &o = v.as_object();
    if (const auto *ml = o.if_contains("matchLabels"); ml != nullptr && !ml->is_null()) {
        if (!ml->is_object()) throw std::invalid_argument(path + ".matchLabels: must be an object");
        for (const auto &[k, val] : ml->as_object())
            s.match_labels[std::string(k)] = required_string(val, path + ".matchLabels." + std::string(k));
    }
    if (const auto *me = o.if_contains("matchExpressions"); me != nullptr && !me->is_null()) {
        if (!me->is_array()) throw std::invalid_argument(path + ".matchExpressions: must be a list");
        for (std::size_t i = 0; i < me->as_array().size(); ++i) {
            const std::string p = path + ".matchExpressions[" + std::to_string(i) + "]";
            const auto &e = me->as_array()[i];
            if (!e.is_object()) throw std::invalid_argument(p + ": must be an object");
            LabelRequirement r;
            r.key = text_at(&e.as_object(), "key");
            r.op = text_at(&e.as_object(), "operator");
            if (r.key.empty()) throw std::invalid_argument(p + ".key: required");
            if (r.op != "In" && r.op != "NotIn" && r.op != "Exists" && r.op != "DoesNotExist")
                throw std::invalid_argument(p + ".operator: must be In, NotIn, Exists or DoesNotExist");
            if (const auto *vals = array_at(e.as_object(), "values"))
                for (const auto &x : *vals) r.values.push_back(required_string(x, p + ".values"));
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

json::object container_state(const json::object *state) {
    json::object out;
    if (state == nullptr) return out;
    if (const auto *w = object_at(*state, "waiting")) out["waiting"] = json::object{{"reason", text_at(w, "reason")}};
    if (const auto *r = object_at(*state, "running")) out["running"] = times({{"startedAt", text_at(r, "startedAt")}});
    if (const auto *t = object_at(*state, "terminated")) {
        json::object term = times({{"startedAt", text_at(t, "startedAt")}, {"finishedAt", text_at(t, "finishedAt")}});
        term["reason"] = text_at(t, "reason");
        const auto *code = t->if_contains("exitCode");
        term["exitCode"] = code != nullptr && code->is_int64() ? code->as_int64() : 0;
        out["terminated"] = std::move(term);
    }
    return out;
}

// Containers in spec order, with what their statuses say.
json::array containers(const json::object &pod, const char *spec_key, const char *status_key) {
    json::array out;
    const auto *spec = object_at(pod, "spec");
    const auto *status = object_at(pod, "status");
    const auto *specs = spec != nullptr ? array_at(*spec, spec_key) : nullptr;
    const auto *statuses = status != nullptr ? array_at(*status, status_key) : nullptr;
    if (specs == nullptr) return out;
    for (const auto &c : *specs) {
        if (!c.is_object()) continue;
        const std::string name = text_at(&c.as_object(), "name");
        json::object entry{{"name", name},   {"id", ""},      {"image", text_at(&c.as_object(), "image")},
                           {"ready", false}, {"restarts", 0}, {"state", json::object{}}};
        if (statuses != nullptr)
            for (const auto &s : *statuses) {
                if (!s.is_object() || text_at(&s.as_object(), "name") != name) continue;
                const auto &so = s.as_object();
                entry["id"] = container_id(text_at(&so, "containerID"));
                if (const std::string image = text_at(&so, "image"); !image.empty()) entry["image"] = image;
                const auto *ready = so.if_contains("ready");
                entry["ready"] = ready != nullptr && ready->is_bool() && ready->as_bool();
                const auto *restarts = so.if_contains("restartCount");
                entry["restarts"] = restarts != nullptr && restarts->is_int64() ? restarts->as_int64() : 0;
                entry["state"] = container_state(object_at(so, "state"));
            }
        out.push_back(std::move(entry));
    }
    return out;
}

// kubectl's STATUS column, briefly: a waiting or terminated container's reason wins.
std::string status_text(const json::object &pod, const json::array &cs) {
    const auto *meta = object_at(pod, "metadata");
    if (meta != nullptr && meta->contains("deletionTimestamp")) return "Terminating";
    const auto *status = object_at(pod, "status");
    std::string text = text_at(status, "reason");
    if (text.empty()) text = text_at(status, "phase");
    for (const auto &c : cs) {
        const auto &state = c.as_object().at("state").as_object();
        if (const auto *w = object_at(state, "waiting"); w != nullptr && !text_at(w, "reason").empty())
            return text_at(w, "reason");
        if (const auto *t = object_at(state, "terminated"); t != nullptr && !text_at(t, "reason").empty())
            text = text_at(t, "reason");
    }
    return text;
}

}  // namespace

DiscoverySpec discovery_spec_of(const json::object &object) {
    DiscoverySpec spec;
    const auto *s = object_at(object, "spec");
    if (s == nullptr) return spec;
    if (const auto *w = s->if_contains("watches"); w != nullptr && !w->is_null()) {
        if (!w->is_array()) throw std::invalid_argument("spec.watches: must be a list");
        for (std::size_t i = 0; i < w->as_array().size(); ++i) {
            const auto &e = w->as_array()[i];
            const std::string p = "spec.watches[" + std::to_string(i) + "]";
            if (!e.is_object()) throw std::invalid_argument(p + ": must be an object");
            WatchRef ref{text_at(&e.as_object(), "namespace"), text_at(&e.as_object(), "uid"),
                         text_at(&e.as_object(), "name")};
            if (ref.namespace_name.empty()) throw std::invalid_argument(p + ".namespace: required");
            spec.watches.push_back(std::move(ref));
        }
    }
    if (const auto *x = s->if_contains("extraSelectors"); x != nullptr && !x->is_null()) {
        if (!x->is_array()) throw std::invalid_argument("spec.extraSelectors: must be a list");
        for (std::size_t i = 0; i < x->as_array().size(); ++i)
            spec.extra_selectors.push_back(
                parse_selector(x->as_array()[i], "spec.extraSelectors[" + std::to_string(i) + "]"));
    }
    return spec;
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
    const auto *meta = object_at(object, "metadata");
    const auto *owners = meta != nullptr ? array_at(*meta, "ownerReferences") : nullptr;
    if (owners == nullptr) return std::nullopt;
    for (const auto &o : *owners) {
        if (!o.is_object()) continue;
        const auto *controller = o.as_object().if_contains("controller");
        if (controller == nullptr || !controller->is_bool() || !controller->as_bool()) continue;
        return OwnerRef{text_at(&o.as_object(), "kind"), text_at(&o.as_object(), "name"),
                        text_at(&o.as_object(), "uid"), text_at(&o.as_object(), "apiVersion")};
    }
    return std::nullopt;
}

PodMatch match_pod(const DiscoverySpec &spec, const json::object &pod, const std::vector<Ancestor> &ancestors) {
    const auto *meta = object_at(pod, "metadata");
    const std::string ns = text_at(meta, "namespace");
    const std::string uid = text_at(meta, "uid");
    for (const auto &w : spec.watches) {
        if (w.uid.empty() || w.namespace_name != ns) continue;
        if (w.uid == uid) return {true, w.uid};
        for (const auto &a : ancestors)
            if (a.ref.uid == w.uid) return {true, w.uid};
    }
    std::map<std::string, std::string> labels;
    if (const auto *l = meta != nullptr ? object_at(*meta, "labels") : nullptr)
        for (const auto &[k, v] : *l)
            if (v.is_string()) labels[std::string(k)] = std::string(v.as_string());
    const auto namespaces = namespaces_of(spec);
    if (!namespaces.contains(ns)) return {};
    for (const auto &s : spec.extra_selectors)
        if (selector_matches(s, labels)) return {true, ""};
    return {};
}

json::object pod_status_entry(const json::object &pod, const std::string &ancestor_uid,
                              const std::vector<Ancestor> &ancestors) {
    const auto *meta = object_at(pod, "metadata");
    const auto *status = object_at(pod, "status");
    json::object out;
    out["name"] = text_at(meta, "name");
    out["namespace"] = text_at(meta, "namespace");
    if (const std::string created = text_at(meta, "creationTimestamp"); !created.empty()) out["createdAt"] = created;
    out["phase"] = text_at(status, "phase");
    out["deleting"] = meta != nullptr && meta->contains("deletionTimestamp");
    json::array cs = containers(pod, "containers", "containerStatuses");
    json::array init = containers(pod, "initContainers", "initContainerStatuses");
    out["status"] = status_text(pod, cs);
    out["containers"] = std::move(cs);
    if (!init.empty()) out["initContainers"] = std::move(init);
    if (const auto *labels = meta != nullptr ? object_at(*meta, "labels") : nullptr)
        if (const std::string hash = text_at(labels, "pod-template-hash"); !hash.empty())
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
