// Deletes a container path (file or whole directory) under a local
// container's root folder without ever following a symlink out of it.
#pragma once

#include <string>
#include <vector>

namespace liveupdate::local {

// Returns "" on success (a path that does not exist is a success), else why.
// A symlink on the way below the path's sync root (agent_protocol::root_for)
// means the delete is already done; at or above it, the delete is refused.
std::string delete_under_root(const std::string &root, const std::string &container_path,
                              const std::vector<std::string> &sync_roots);

}  // namespace liveupdate::local
