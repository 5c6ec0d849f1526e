// Ignore definitions as Tilt's FileWatch spec.ignores and an update's filter
// write them, {"basePath": ABS, "patterns": [dockerignore patterns]}: the one
// reader and writer the plugin, the host's watchers, its archives and verify share.
#pragma once

#include <string>
#include <vector>

#include <boost/json.hpp>

#include "common/ignore_patterns.hpp"
#include "common/json_fields.hpp"

namespace liveupdate::common {

struct IgnoreDef {
    std::string base_path;
    std::vector<std::string> patterns;
    bool operator==(const IgnoreDef &) const = default;
};

// An absent or null basePath reads as "", absent or null patterns as none;
// the caller decides what those mean. Throws DecodeError naming the field
// (`spec.ignores[0].patterns[2]: expected string`).
IgnoreDef parse_ignore_def(const boost::json::value &value, const std::string &path);
// An array of definitions; null reads as none.
std::vector<IgnoreDef> parse_ignore_defs(const boost::json::value &value, const std::string &path);

boost::json::object to_json(const IgnoreDef &def);
boost::json::array to_json(const std::vector<IgnoreDef> &defs);

// Compiled as written; throws std::invalid_argument naming a malformed pattern.
IgnoreSet ignore_set_of(const std::vector<IgnoreDef> &defs);

}  // namespace liveupdate::common
