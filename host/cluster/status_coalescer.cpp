#include "host/cluster/status_coalescer.hpp"

#include "common/json_fields.hpp"
#include "common/json_numbers.hpp"
#include "common/micro_time.hpp"

namespace liveupdate::host::cluster {
namespace json = boost::json;

namespace {

bool same_text(json::string_view a, json::string_view b) {
    if (a == b) return true;
    const auto time_a = common::MicroTime::parse(a);
    const auto time_b = common::MicroTime::parse(b);
    return time_a && time_b && *time_a == *time_b;
}

}  // namespace

bool same_status(const json::value &a, const json::value &b) {
    if (a.is_number() && b.is_number()) return common::same_number(a, b);
    if (a.kind() != b.kind()) return false;
    switch (a.kind()) {
    case json::kind::object: {
        const json::object &oa = a.get_object();
        const json::object &ob = b.get_object();
        for (const auto &[key, value] : oa)
            if (const json::value *other = common::member(ob, key);
                other != nullptr ? !same_status(value, *other) : !value.is_null())
                return false;
        for (const auto &[key, value] : ob)
            if (!oa.contains(key) && !value.is_null()) return false;
        return true;
    }
    case json::kind::array: {
        const json::array &aa = a.get_array();
        const json::array &ab = b.get_array();
        if (aa.size() != ab.size()) return false;
        for (std::size_t i = 0; i < aa.size(); ++i)
            if (!same_status(aa[i], ab[i])) return false;
        return true;
    }
    case json::kind::string: return same_text(a.get_string(), b.get_string());
    default: return a == b;
    }
}

bool StatusCoalescer::offer(const std::string &key, const json::object &status) {
    own_[key] = status;
    const auto held = held_.find(key);
    if (held != held_.end() && same_status(held->second, status)) {
        pending_.erase(key);  // back to what the cluster holds: an older pending one must not be written
        return false;
    }
    const bool first = !pending_.contains(key);
    pending_[key] = status;
    return first;
}

std::map<std::string, json::object> StatusCoalescer::take() {
    std::map<std::string, json::object> out;
    for (auto &[key, status] : pending_) {
        // Made pending again while the same was being written: the cluster holds it now.
        const auto held = held_.find(key);
        if (held == held_.end() || !same_status(held->second, status)) out.emplace(key, std::move(status));
    }
    pending_.clear();
    return out;
}

void StatusCoalescer::written(const std::string &key, const json::object &status, const json::object &stored) {
    held_[key] = status;
    stored_[key] = stored;
}

bool StatusCoalescer::observed(const std::string &key, const json::object &status) {
    if (const auto stored = stored_.find(key); stored != stored_.end() && same_status(stored->second, status))
        return false;  // the operator's own write, read back
    held_[key] = status;
    const auto own = own_.find(key);
    if (own == own_.end() || same_status(own->second, status)) return false;
    const bool first = !pending_.contains(key);
    pending_[key] = own->second;
    return first;
}

void StatusCoalescer::forget(const std::string &key) {
    held_.erase(key);
    stored_.erase(key);
    own_.erase(key);
    pending_.erase(key);
}

}  // namespace liveupdate::host::cluster
