// LocalContainer (liveupdate.dev/v1alpha1, beyond Tilt): a folder standing for
// a container's filesystem, optionally with a supervised process.
#pragma once

#include <string>
#include <vector>

#include <boost/json.hpp>

#include "plugin/core/api/docker_compose_service.hpp"

namespace liveupdate::api {

struct LocalContainerSpec {
    std::string root;
    std::vector<std::string> command;
    std::string working_dir;
    std::vector<std::string> env;  // "KEY=value"
};

struct LocalContainer {
    LocalContainerSpec spec;
    RuntimeContainerStatus status;
};

LocalContainer decode_local_container(const boost::json::object &object);

}  // namespace liveupdate::api
