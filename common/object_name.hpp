// The rule every API object's metadata.name follows: Kubernetes' rule for
// the names of custom resources (path segment names), which Tilt's API
// server applies. Tilt's own names need more than DNS-1123 subdomains
// (a LiveUpdate is "<manifest>:<image target>", ':' and '_' included), so
// this is the rule, not the stricter one of built-in kinds. A name is a
// segment of a URL path on the status page, never markup.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace liveupdate::common {

inline constexpr std::size_t kMaxObjectNameLength = 253;  // Tilt's apis.MaxNameLength

// Why name is not an object name (Kubernetes' wording: "may not contain
// '/'"), or nullopt when it is one.
std::optional<std::string> object_name_problem(std::string_view name);

}  // namespace liveupdate::common
