// JSON values written as YAML (yaml-cpp's emitter), documents separated by
// "---": what `lu-host crds` prints, read back by kubectl and common/yaml_json
// as the same JSON (strings that would read as another type are quoted).
#pragma once

#include <string>
#include <vector>

#include <boost/json.hpp>

namespace liveupdate::host::cluster {

std::string yaml_documents(const std::vector<boost::json::value> &documents);

}  // namespace liveupdate::host::cluster
