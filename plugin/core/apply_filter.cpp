#include "plugin/core/apply_filter.hpp"

#include <algorithm>
#include <map>
#include <stdexcept>
#include <string_view>

#include <boost/json.hpp>

#include "common/json_fields.hpp"
#include "common/yaml_json.hpp"

namespace liveupdate {
namespace {

constexpr std::string_view kHashLabel = "tilt.dev/pod-template-hash";

std::string_view trim(std::string_view s) {
    while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
    while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.remove_suffix(1);
    return s;
}

void walk_json_hashes(const boost::json::value &v, ApplyFilter &out) {
    if (v.is_object()) {
        for (const auto &kv : v.get_object()) {
            if (kv.key() == kHashLabel && kv.value().is_string())
                out.pod_template_hashes.emplace_back(kv.value().get_string());
            walk_json_hashes(kv.value(), out);
        }
    } else if (v.is_array()) {
        for (const auto &e : v.get_array()) walk_json_hashes(e, out);
    }
}

void add_json_entity(const boost::json::value &v, ApplyFilter &out) {
    if (!v.is_object()) return;
    const auto &o = v.get_object();
    if (const auto *items = common::member(o, "items"); items && items->is_array()) {
        for (const auto &e : items->get_array()) add_json_entity(e, out);
        return;
    }
    const auto *meta = common::member(o, "metadata");
    const auto *uid = meta && meta->is_object() ? common::member(meta->get_object(), "uid") : nullptr;
    if (uid == nullptr || !uid->is_string() || uid->get_string().empty()) {
        const auto *name = meta && meta->is_object() ? common::member(meta->get_object(), "name") : nullptr;
        throw std::runtime_error("Resource missing uid: " +
                                 std::string(name && name->is_string() ? name->get_string() : ""));
    }
    out.deployed_uids.emplace_back(uid->get_string());
    walk_json_hashes(v, out);
}

bool contains(const std::vector<std::string> &v, const std::string &s) {
    return std::find(v.begin(), v.end(), s) != v.end();
}

bool has_valid_owner(const api::Pod &pod) {
    return pod.owner && !pod.owner->name.empty() && !pod.owner->creation_timestamp.is_zero();
}

}  // namespace

ApplyFilter apply_filter_from_result(const std::string &result_yaml) {
    ApplyFilter out;
    const auto text = trim(result_yaml);
    if (text.empty()) return out;
    if (text.front() == '{' || text.front() == '[') {
        boost::json::value v;
        try {
            v = common::parse_limited(text);
        } catch (const common::DecodeError &) {
            v = nullptr;  // not JSON after all: read as YAML below, which says what is wrong
        }
        if (!v.is_null()) {
            if (v.is_array())
                for (const auto &e : v.get_array()) add_json_entity(e, out);
            else
                add_json_entity(v, out);
            return out;
        }
    }
    for (const auto &document : common::yaml_documents(text)) add_json_entity(document, out);
    return out;
}

std::vector<api::Pod> filter_pods(const ApplyFilter *filter, const std::vector<api::Pod> &pods) {
    std::map<std::string, const api::PodOwner *> newest_owner;
    for (const auto &pod : pods) {
        if (pod.ancestor_uid.empty() || !has_valid_owner(pod)) continue;
        auto &newest = newest_owner[pod.ancestor_uid];
        if (newest == nullptr || newest->creation_timestamp < pod.owner->creation_timestamp) newest = &*pod.owner;
    }
    std::vector<api::Pod> out;
    for (const auto &pod : pods) {
        const auto it = newest_owner.find(pod.ancestor_uid);
        if (has_valid_owner(pod) && it != newest_owner.end() && pod.owner->name != it->second->name &&
            pod.owner->kind == "ReplicaSet")
            continue;
        if (filter != nullptr && !pod.pod_template_spec_hash.empty() &&
            !contains(filter->pod_template_hashes, pod.pod_template_spec_hash))
            continue;
        if (filter != nullptr && !pod.ancestor_uid.empty() && !contains(filter->deployed_uids, pod.ancestor_uid))
            continue;
        out.push_back(pod);
    }
    return out;
}

}  // namespace liveupdate
