// Indented JSON for people (`lu-host describe`).
#pragma once

#include <string>

#include <boost/json.hpp>

namespace liveupdate::host::cli {

std::string pretty_json(const boost::json::value &value, int indent = 0);

}  // namespace liveupdate::host::cli
