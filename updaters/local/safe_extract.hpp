// Unpacks a streamed tar archive under a local container's root folder,
// refusing entries that would land outside it.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "liveupdate/updater.hpp"
#include "liveupdate/updater_plugin.h"

namespace liveupdate::local {

struct ExtractResult {
    std::uint64_t files = 0;  // entries written, directories not counted
    std::uint64_t bytes = 0;  // file content written
    std::uint64_t kept = 0;   // files left as the container holds them (the forward guard)
    std::string error;        // non-empty on failure: which entry and why
};

// root must be canonical (no symlink in any component): libarchive refuses
// to write through any symlink it meets on the way, which is what keeps
// entries inside root. Below an entry's sync root (sync_roots, container
// paths: agent_protocol::root_for) a symlink where a folder comes is replaced
// by the folder, as tar does; at or above it, it is refused, since following
// it could leave root. No chdir() happens: every entry gets an absolute path.
// A regular file the guard expects something of is written into a
// temporary beside its path and renamed into place only when what the path
// holds is still what the guard expects; else the temporary goes, the path
// stays as it is and guard.kept() is told (docs/sync-back.md).
// progress (optional) sees the counts so far, at most once per second.
ExtractResult extract_under_root(const std::string &root, const lu_archive_stream &stream,
                                 const std::vector<std::string> &sync_roots, const updater::ForwardGuard &guard = {},
                                 const std::function<void(const ExtractResult &)> &progress = {});

}  // namespace liveupdate::local
