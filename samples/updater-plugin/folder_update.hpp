// Applies one container update to a folder standing for the container's "/":
// deletes, then the archive unpacked, then the commands, run in the folder's
// working directory. Nothing may land outside the folder.
#pragma once

#include <functional>
#include <string>
#include <string_view>

#include "liveupdate/updater_plugin.h"

namespace sample {

struct FolderOutcome {
    lu_outcome_kind kind = LU_OUTCOME_OK;
    int exit_code = 0;
    std::string message;
};

using LineFn = std::function<void(std::string_view line)>;

// root: the folder (absolute); working_dir: a container path such as "/app".
FolderOutcome apply_to_folder(const std::string &root, const std::string &working_dir,
                              const lu_update_request &request, const LineFn &log);

}  // namespace sample
