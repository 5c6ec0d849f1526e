#include "core/apply_filter.hpp"

#include <algorithm>
#include <map>
#include <stdexcept>
#include <string_view>

#include <boost/json.hpp>

namespace liveupdate {
namespace {

constexpr std::string_view kHashLabel = "tilt.dev/pod-template-hash";

std::string_view trim(std::string_view s) {
    while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
    while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.remove_suffix(1);
    return s;
}

std::string unquote(std::string_view s) {
    s = trim(s);
    if (s.size() >= 2 && (s.front() == '"' || s.front() == '\'') && s.back() == s.front())
        s = s.substr(1, s.size() - 2);
    return std::string(s);
}

std::size_t indent_of(std::string_view line) {
    std::size_t n = 0;
    while (n < line.size() && line[n] == ' ') ++n;
    return n;
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
    if (const auto *items = o.if_contains("items"); items && items->is_array()) {
        for (const auto &e : items->get_array()) add_json_entity(e, out);
        return;
    }
    const auto *meta = o.if_contains("metadata");
    const auto *uid = meta && meta->is_object() ? meta->get_object().if_contains("uid") : nullptr;
    if (uid == nullptr || !uid->is_string() || uid->get_string().empty()) {
        const auto *name = meta && meta->is_object() ? meta->get_object().if_contains("name") : nullptr;
        throw std::runtime_error("Resource missing uid: " +
                                 std::string(name && name->is_string() ? name->get_string() : ""));
    }
    out.deployed_uids.emplace_back(uid->get_string());
    walk_json_hashes(v, out);
}

// One YAML document: the top-level metadata's uid and every hash label.
void add_yaml_document(const std::vector<std::string_view> &lines, ApplyFilter &out) {
    bool any_content = false;
    bool in_metadata = false;
    std::size_t metadata_child_indent = 0;
    std::string uid, name;
    for (const auto line : lines) {
        const auto content = trim(line);
        if (content.empty() || content.front() == '#') continue;
        any_content = true;
        const std::size_t indent = indent_of(line);
        if (indent == 0) {
            in_metadata = content == "metadata:";
            metadata_child_indent = 0;
            continue;
        }
        if (in_metadata) {
            if (metadata_child_indent == 0) metadata_child_indent = indent;
            if (indent == metadata_child_indent) {
                if (content.rfind("uid:", 0) == 0) uid = unquote(content.substr(4));
                if (content.rfind("name:", 0) == 0) name = unquote(content.substr(5));
            }
        }
        const auto label = content.find(kHashLabel);
        if (label != std::string_view::npos) {
            auto rest = content.substr(label + kHashLabel.size());
            if (!rest.empty() && (rest.front() == '"' || rest.front() == '\'')) rest.remove_prefix(1);
            if (!rest.empty() && rest.front() == ':') out.pod_template_hashes.push_back(unquote(rest.substr(1)));
        }
    }
    if (!any_content) return;
    if (uid.empty()) throw std::runtime_error("Resource missing uid: " + name);
    out.deployed_uids.push_back(uid);
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
        boost::system::error_code ec;
        boost::json::parse_options opts;
        opts.max_depth = 64;
        const auto v = boost::json::parse(text, ec, {}, opts);
        if (!ec) {
            if (v.is_array())
                for (const auto &e : v.get_array()) add_json_entity(e, out);
            else
                add_json_entity(v, out);
            return out;
        }
    }
    std::vector<std::string_view> doc;
    std::string_view rest = result_yaml;
    while (!rest.empty()) {
        const auto nl = rest.find('\n');
        const auto line = rest.substr(0, nl);
        rest = nl == std::string_view::npos ? std::string_view{} : rest.substr(nl + 1);
        if (trim(line).rfind("---", 0) == 0 && indent_of(line) == 0) {
            add_yaml_document(doc, out);
            doc.clear();
            continue;
        }
        doc.push_back(line);
    }
    add_yaml_document(doc, out);
    return out;
}

std::vector<api::Pod> filter_pods(const ApplyFilter *filter, const std::vector<api::Pod> &pods) {
    std::map<std::string, const api::PodOwner *> newest_owner;
    for (const auto &pod : pods) {
        if (pod.ancestor_uid.empty() || !has_valid_owner(pod)) continue;
        auto &slot = newest_owner[pod.ancestor_uid];
        if (slot == nullptr || slot->creation_timestamp < pod.owner->creation_timestamp) slot = &*pod.owner;
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
