#include "plugin/core/api/file_watch.hpp"

#include "plugin/core/json_fields.hpp"

namespace liveupdate::api {
using namespace json_fields;

IgnoreDef decode_ignore_def(const json::object &o, const std::string &path) {
    return IgnoreDef{string_field(o, "basePath", path), string_array_field(o, "patterns", path)};
}

json::value encode_ignore_def(const IgnoreDef &def) {
    json::array patterns;
    for (const auto &p : def.patterns) patterns.emplace_back(p);
    return json::object{{"basePath", def.base_path}, {"patterns", std::move(patterns)}};
}

FileWatch decode_file_watch(const json::object &object) {
    FileWatch fw;
    if (const auto *spec = object_field(object, "spec", "")) {
        fw.watched_paths = string_array_field(*spec, "watchedPaths", "spec");
        if (const auto *arr = array_field(*spec, "ignores", "spec")) {
            for (std::size_t i = 0; i < arr->size(); ++i) {
                const std::string p = index("spec.ignores", i);
                fw.ignores.push_back(decode_ignore_def(expect_object((*arr)[i], p), p));
            }
        }
    }
    if (const auto *status = object_field(object, "status", "")) {
        if (const auto *arr = array_field(*status, "fileEvents", "status")) {
            for (std::size_t i = 0; i < arr->size(); ++i) {
                const std::string p = index("status.fileEvents", i);
                const auto &eo = expect_object((*arr)[i], p);
                fw.file_events.push_back({time_field(eo, "time", p), string_array_field(eo, "seenFiles", p)});
            }
        }
    }
    return fw;
}

}  // namespace liveupdate::api
