#include "plugin/core/api/object_meta.hpp"

#include "common/json_fields.hpp"

namespace liveupdate::api {
using namespace common;

ObjectMeta decode_object_meta(const boost::json::object &object) {
    ObjectMeta meta;
    const auto *m = object_field(object, "metadata", "");
    if (m == nullptr) throw DecodeError("metadata.name", "required");
    meta.name = string_field(*m, "name", "metadata");
    if (meta.name.empty()) throw DecodeError("metadata.name", "required");
    meta.namespace_name = string_field(*m, "namespace", "metadata");
    meta.annotations = string_map_field(*m, "annotations", "metadata");
    return meta;
}

}  // namespace liveupdate::api
