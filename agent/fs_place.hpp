// Where a write or delete of lu-agent lands: the folder holding the path,
// open, and the path's last name in it. Down to the request's root (its sync's
// container path) symlinks are followed, as `tar -C` follows its folder; below
// it nothing is followed, so nothing outside the root is ever touched.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "common/unique_fd.hpp"

namespace liveupdate::agent {

using common::UniqueFd;

struct Place {
    UniqueFd parent;            // the folder holding the path
    std::string leaf;           // the path's name in it
    bool leaf_is_root = false;  // the path is the root itself: a symlink there may be followed
};

struct PlaceResult {
    std::optional<Place> place;  // none: the path cannot exist (a delete is done), or error is set
    int error = 0;               // errno
    std::string what;            // what failed, when error is set
};

// The names of an absolute path, without empty and "." ones.
std::vector<std::string> path_names(const std::string &path);

// Opens the folder holding path, which lies at or below root. With `create`
// (writes) missing folders are made, and a symlink or a file below the root
// where a folder is needed is replaced by one (as tar does for a folder in its
// archive); without (deletes) such a path is missing: no place, no error.
PlaceResult open_place(const std::string &root, const std::string &path, bool create);

// Removes the folder `name` in `parent` and all beneath it, following nothing.
int remove_tree_at(int parent, const std::string &name);

}  // namespace liveupdate::agent
