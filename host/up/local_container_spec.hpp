// The spec of a LocalContainer (apiVersion liveupdate.dev/v1alpha1): a folder
// standing for a container's filesystem root and an optional process.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include <boost/json.hpp>

namespace liveupdate::host::up {

struct LocalProcessSpec {
    std::string root;                                      // absolute folder
    std::vector<std::string> command;                      // argv; empty: no process, the folder alone
    std::string working_dir = "/";                         // container path the process starts in
    std::vector<std::pair<std::string, std::string>> env;  // added to the host's environment
    bool operator==(const LocalProcessSpec &) const = default;
};

// Reads spec.root (required, absolute once resolved), spec.command (array of
// strings), spec.workingDir (absolute container path), spec.env ({"K": "V"}
// or ["K=V", ...]). Throws std::invalid_argument naming the field.
LocalProcessSpec parse_local_container_spec(const boost::json::object &object);

// The host folder a container path stands for: root + path ("/" → root).
std::string host_path_in(const LocalProcessSpec &spec, const std::string &container_path);

}  // namespace liveupdate::host::up
