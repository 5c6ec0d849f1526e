#include "plugin/core/api/image_map.hpp"

#include "common/json_fields.hpp"

namespace liveupdate::api {
using namespace common;

ImageMap decode_image_map(const json::object &object) {
    ImageMap im;
    if (const auto *status = object_field(object, "status", "")) {
        im.status.image = string_field(*status, "image", "status");
        im.status.image_from_cluster = string_field(*status, "imageFromCluster", "status");
        im.status.build_start_time = time_field(*status, "buildStartTime", "status");
    }
    return im;
}

}  // namespace liveupdate::api
