// Specs that are admitted but are likely mistakes, said once when an object is
// applied: a LiveUpdate sync whose localPath lies outside spec.basePath (its
// files are then outside what the LiveUpdate is about, Tilt's tree of the
// resource), and a LocalContainer whose root is "/" (a sync or a delete then
// writes anywhere on this machine).
#pragma once

#include <string>
#include <vector>

#include <boost/json.hpp>

namespace liveupdate::host {

// "spec.syncs[0].localPath: ..." messages, relative paths already resolved (object_files.hpp).
std::vector<std::string> admission_warnings(const boost::json::object &object);

}  // namespace liveupdate::host
