// Paths every FileWatch ignores on top of its own `ignores`: version-control
// metadata and the temporary files editors write while saving.
#pragma once

#include <string_view>

namespace liveupdate::host::up {

// True for anything inside a .git directory (or the directory itself) and
// for editor temporaries (vim swap and 4913 probe files, emacs lock and
// autosave files, backup files ending in ~, JetBrains safe-write files, ...):
// the rules of common/builtin_ignores.hpp, which the initial sync applies too.
bool is_builtin_ignored(std::string_view absolute_path);

}  // namespace liveupdate::host::up
