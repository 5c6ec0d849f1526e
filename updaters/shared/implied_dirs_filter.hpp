// Re-streams a tar archive without its implied directory entries: a directory
// entry that a later entry lies beneath is left out, since unpacking that
// later entry creates it anyway. An explicit entry for a directory that is a
// symlink in the container (e.g. /var/run -> /run) makes GNU tar and Docker's
// archive API replace the symlink by a real directory, and the files land
// beside the running program instead of where it looks for them.
// Directories with nothing beneath them in the archive are kept.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <set>
#include <string>

#include "common/archive_stream.hpp"
#include "updaters/shared/container_owner.hpp"

namespace liveupdate::updaters {

// Each entry written (implied folders are not): its path (no leading "/") and whether it is a folder.
using ArchiveEntryFn = std::function<void(const std::string &path, bool folder)>;

// Throws std::runtime_error when the input is not a tar archive or cannot be
// read; exceptions from `out` pass through unchanged. With an owner, every
// entry is given it (numeric only: names would be looked up again).
// explicit_folders (paths without a leading "/") get a folder entry before
// anything beneath them, the archive's own or a 0755 one: where the container
// has a symlink or a file, that entry makes the archive API replace it.
void copy_without_implied_dirs(const common::ArchiveReadFn &in, const common::ArchiveWriteFn &out,
                               std::optional<Owner> owner = std::nullopt, const ArchiveEntryFn &on_entry = {},
                               const std::set<std::string> &explicit_folders = {});

}  // namespace liveupdate::updaters
