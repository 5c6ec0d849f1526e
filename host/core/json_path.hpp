// Nested members of JSON values that may be absent or of another type, as in
// the statuses the daemon answers with. Header-only: any host library may use it.
#pragma once

#include <initializer_list>
#include <string>
#include <string_view>

#include <boost/json.hpp>

namespace liveupdate::host {

// The value at path (object keys, outermost first), or nullptr.
inline const boost::json::value *value_at(const boost::json::value &v, std::initializer_list<std::string_view> path) {
    const boost::json::value *cur = &v;
    for (auto key : path) {
        if (!cur->is_object()) return nullptr;
        cur = cur->as_object().if_contains(key);
        if (cur == nullptr) return nullptr;
    }
    return cur;
}

// The string at path, or "".
inline std::string text_at(const boost::json::value &v, std::initializer_list<std::string_view> path) {
    const boost::json::value *found = value_at(v, path);
    return found != nullptr && found->is_string() ? std::string(found->as_string()) : std::string();
}

}  // namespace liveupdate::host
