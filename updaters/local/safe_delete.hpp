// Deletes a container path (file or whole directory) under a local
// container's root folder without ever following a symlink out of it.
#pragma once

#include <string>

namespace liveupdate::local {

// Returns "" on success (a path that does not exist is a success), else why.
std::string delete_under_root(const std::string &root, const std::string &container_path);

}  // namespace liveupdate::local
