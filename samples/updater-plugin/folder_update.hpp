// Applies one container update to a folder standing for the container's "/":
// deletes, then the archive unpacked, then the commands, run in the folder's
// working directory. Nothing may land outside the folder.
#pragma once

#include <functional>
#include <string>
#include <string_view>

#include "liveupdate/updater.hpp"

namespace sample {

using LineFn = std::function<void(std::string_view line)>;

// root: the folder (absolute); working_dir: a container path such as "/app".
liveupdate::updater::Outcome apply_to_folder(const std::string &root, const std::string &working_dir,
                                             const liveupdate::updater::Request &request, const LineFn &log);

}  // namespace sample
