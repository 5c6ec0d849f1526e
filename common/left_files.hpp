// Files a writer of liveupdate's own left behind when its process died
// between writing a temporary beside a path and renaming it into place,
// found and removed beneath a folder: each folder opened beneath its parent
// (common/open_beneath.hpp), so a symlink is never followed nor the folder
// left; only a regular file of this user with one link is looked at, and
// only one the writer's rule owns is removed. The
// names and the rule are each writer's: sync back's in the developer's folder
// (host/sync_back/left_temporaries.hpp), the local updater's in a container
// folder (updaters/local/left_temporaries.hpp).
#pragma once

#include <sys/stat.h>

#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace liveupdate::common {

struct LeftFileRule {
    // Whether name is exactly one the writer gives its temporaries (asked first: no stat yet).
    std::function<bool(std::string_view name)> named;
    // Whether that regular file, as lstat saw it, was left behind: no writer alive may still own it.
    std::function<bool(std::string_view name, const struct stat &st)> left;
};

struct LeftFiles {
    std::vector<std::string> removed;  // paths
    std::vector<std::string> errors;   // what could not be looked at or removed, and why
};

// Removes the files rule owns beneath folder/beneath (beneath: a relative
// path reached from folder without a symlink; "" for folder itself).
// Nothing when either is missing, or beneath goes through a symlink.
LeftFiles remove_left_files(const std::string &folder, const std::string &beneath, const LeftFileRule &rule);

}  // namespace liveupdate::common
