#include "plugin/core/api/file_watch.hpp"

#include "common/json_fields.hpp"

namespace liveupdate::api {
using namespace common;

FileWatch decode_file_watch(const json::object &object) {
    FileWatch fw;
    if (const auto *spec = object_field(object, "spec", "")) {
        fw.watched_paths = string_array_field(*spec, "watchedPaths", "spec");
        if (const auto *arr = array_field(*spec, "ignores", "spec")) {
            for (std::size_t i = 0; i < arr->size(); ++i) {
                const std::string p = index("spec.ignores", i);
                fw.ignores.push_back(parse_ignore_def((*arr)[i], p));
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
