// I01/I03: every file under every sync path of a LiveUpdate, filtered by the
// source FileWatches' ignores, for a container's first full sync.
#pragma once

#include <string>
#include <vector>

#include "common/ignore_patterns.hpp"
#include "plugin/core/api/file_watch.hpp"
#include "plugin/core/api/live_update.hpp"

namespace liveupdate {

// The filter Tilt applies to an initial sync: the sources' ignores (ill-formed
// ones skipped, one without patterns ignores its whole base path) plus the
// built-in ignores every watcher applies (common/builtin_ignores.hpp). Every definition returned is well-formed.
std::vector<common::IgnoreDef> initial_sync_filter(const std::vector<common::IgnoreDef> &source_ignores);

struct InitialSyncFiles {
    std::vector<std::string> files;     // absolute, sorted
    std::vector<std::string> warnings;  // sync paths that do not exist, names not UTF-8
};

// Walks each sync's local path (not following symlinks). Directories the
// filter ignores entirely are skipped; ignored files are left out, and so
// are names that are not valid UTF-8 (with a warning, see core/utf8.hpp).
// Throws std::runtime_error naming the path when a walk fails.
InitialSyncFiles collect_initial_sync_files(const api::LiveUpdateSpec &spec, const common::IgnoreSet &filter);

}  // namespace liveupdate
