// Unpacks a streamed tar archive under a local container's root folder,
// refusing entries that would land outside it.
#pragma once

#include <cstdint>
#include <string>

#include "liveupdate/updater_plugin.h"

namespace liveupdate::local {

struct ExtractResult {
    std::uint64_t files = 0;   // entries written
    std::uint64_t bytes = 0;   // file content written
    std::string error;         // non-empty on failure: which entry and why
};

// root must be canonical (no symlink in any component): libarchive refuses
// to write through any symlink it meets on the way, which is what keeps
// entries inside root. No chdir() happens: every entry gets an absolute path.
ExtractResult extract_under_root(const std::string &root, const lu_archive_stream &stream);

}  // namespace liveupdate::local
