// Writing the tar of an update's copy mappings into a sink: each mapping's
// tree walked once, entries in the order the updaters' filters expect.
#pragma once

#include <vector>

#include "host/core/archive_builder.hpp"
#include "host/core/archive_sink.hpp"

namespace liveupdate::host {

// Paths that cannot be read are left out and listed in the summary; throws
// HostError when the archive cannot be completed (a read error inside a file,
// the sink throwing). The end-of-archive marker is written last, so a
// failure never looks like a complete archive.
ArchiveSummary write_archive_to(const std::vector<updater::CopyMapping> &copies, const common::IgnoreSet &filter,
                                ArchiveSink &sink, const LogSinkFn &log, const EntryHooks &hooks);

}  // namespace liveupdate::host
