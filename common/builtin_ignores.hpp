// The one set of paths every watcher and every initial sync ignores, on top
// of the FileWatches' own ignores: version-control metadata and the
// temporary files editors and tools write (Tilt's EphemeralPathMatcher and
// its .git rule). Live sync (the host's watchers) and the initial sync (the
// plugin's walk and the host's archive) use this same list, so a file is
// either synced by both or by neither.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "common/ignore_patterns.hpp"

namespace liveupdate::common {

// The rules, as ignore patterns relative to "/".
const std::vector<std::string> &builtin_ignore_patterns();

// The rules compiled once.
const IgnorePatterns &builtin_ignores();

}  // namespace liveupdate::common
