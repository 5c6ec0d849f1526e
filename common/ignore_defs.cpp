#include "common/ignore_defs.hpp"

namespace liveupdate::common {
namespace json = boost::json;

IgnoreDef parse_ignore_def(const json::value &value, const std::string &path) {
    const json::object &o = expect_object(value, path);
    return IgnoreDef{string_field(o, "basePath", path), string_array_field(o, "patterns", path)};
}

std::vector<IgnoreDef> parse_ignore_defs(const json::value &value, const std::string &path) {
    std::vector<IgnoreDef> out;
    if (value.is_null()) return out;
    if (!value.is_array()) throw DecodeError(path, "expected array");
    const json::array &list = value.as_array();
    for (std::size_t i = 0; i < list.size(); ++i) out.push_back(parse_ignore_def(list[i], index(path, i)));
    return out;
}

json::object to_json(const IgnoreDef &def) {
    json::array patterns;
    for (const auto &p : def.patterns) patterns.emplace_back(p);
    return json::object{{"basePath", def.base_path}, {"patterns", std::move(patterns)}};
}

json::array to_json(const std::vector<IgnoreDef> &defs) {
    json::array out;
    for (const auto &def : defs) out.push_back(to_json(def));
    return out;
}

IgnoreSet ignore_set_of(const std::vector<IgnoreDef> &defs) {
    IgnoreSet set;
    for (const auto &def : defs) set.add(IgnorePatterns(def.base_path, def.patterns));
    return set;
}

}  // namespace liveupdate::common
