// Where the tar writer's bytes go (host/core/tar_tree_writer.hpp): a
// function behind a buffer, or the handoff to an ArchiveStream's reader.
#pragma once

#include <cstddef>
#include <span>

namespace liveupdate::host {

// Where archive bytes go. File contents are read straight into space() and
// handed back to write() at the same address, so a sink that lends its
// reader's buffer gets them without a copy.
class ArchiveSink {
public:
    virtual ~ArchiveSink() = default;
    // Room for at most want bytes (never empty; may block).
    virtual std::span<char> space(std::size_t want) = 0;
    // Takes the bytes; throws to abort the archive.
    virtual void write(const char *data, std::size_t size) = 0;
};

}  // namespace liveupdate::host
