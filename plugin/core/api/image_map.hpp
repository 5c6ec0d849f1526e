// The ImageMap kind: the built image and when its build started.
#pragma once

#include <optional>
#include <string>

#include <boost/json.hpp>

#include "common/micro_time.hpp"

namespace liveupdate::api {

struct ImageMapStatus {
    std::string image;
    std::string image_from_cluster;
    common::MicroTime build_start_time;  // zero: unset
};

struct ImageMap {
    ImageMapStatus status;
};

ImageMap decode_image_map(const boost::json::object &object);

}  // namespace liveupdate::api
