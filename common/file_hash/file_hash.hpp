// The XXH3-64 (seed 0) of a file's bytes, read through an open descriptor:
// the one loop behind lu-agent's forward guard, the tree digest's per-file
// hash (verify's, and lu-agent's Digest answer), the local updater's and
// sync back's content digests, and sync back's copy of a container file. The digest depends only on the bytes, never on
// the buffer nor on how the reads split them: journals and the agent protocol hold these values, so they never change.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>

namespace liveupdate::file_hash {

struct FdHash {
    std::uint64_t hash = 0;  // of every byte read (the whole rest of the file when neither below is set)
    int error = 0;           // the errno of the read that failed; 0 when none did
    bool stopped = false;    // after_chunk asked to stop before the end
};

// Called after each chunk is hashed, with its bytes (in the caller's buffer,
// until the next read): a copy writes them where the hash was taken from, so
// the digest is of exactly the bytes copied. False stops the read.
using AfterChunk = std::function<bool(std::span<const char> chunk)>;

// Reads fd from its offset to its end through buffer (the caller's: lu-agent
// passes one on its stack, a walk one it keeps for every file), retrying a
// read that EINTR interrupted; short reads are hashed as they come.
FdHash hash_fd(int fd, std::span<char> buffer, const AfterChunk &after_chunk = {});

// The same from the file's first byte with pread, leaving fd's offset where
// it was: for a descriptor that is read again (sync back's reads and its
// copy into place). A pipe or FIFO fails with ESPIPE rather than reading what comes.
FdHash hash_fd_from_start(int fd, std::span<char> buffer, const AfterChunk &after_chunk = {});

}  // namespace liveupdate::file_hash
