#include "host/core/json_text.hpp"

#include "host/core/host_error.hpp"

namespace liveupdate::host {

boost::json::value parse_json(std::string_view text, const std::string &what, const std::string &where) {
    boost::system::error_code ec;
    boost::json::value value = boost::json::parse(text, ec);
    if (ec) throw HostError(what, where, "invalid JSON: " + ec.message());
    return value;
}

std::string to_json_text(const boost::json::value &value) { return boost::json::serialize(value); }

const boost::json::value *find_member(const boost::json::value &object, std::string_view key) {
    const auto *as_object = object.if_object();
    if (as_object == nullptr) return nullptr;
    return as_object->if_contains(key);
}

std::string string_member(const boost::json::value &object, std::string_view key, std::string_view fallback) {
    const auto *member = find_member(object, key);
    if (member == nullptr || !member->is_string()) return std::string(fallback);
    return std::string(member->get_string());
}

}  // namespace liveupdate::host
