// JSON text in and out of the host: parsing that reports where it failed, and
// compact serialization.
#pragma once

#include <string>
#include <string_view>

#include <boost/json.hpp>

namespace liveupdate::host {

// Throws HostError(what, where, "invalid JSON: <reason>") when text is not one JSON value.
boost::json::value parse_json(std::string_view text, const std::string &what, const std::string &where);

std::string to_json_text(const boost::json::value &value);

// Object member or nullptr when absent or the object is not an object.
const boost::json::value *find_member(const boost::json::value &object, std::string_view key);
// The member as a string, or fallback.
std::string string_member(const boost::json::value &object, std::string_view key, std::string_view fallback = "");

}  // namespace liveupdate::host
