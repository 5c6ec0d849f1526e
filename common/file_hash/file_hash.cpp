#include "common/file_hash/file_hash.hpp"

#include <unistd.h>

#include <cerrno>

#define XXH_INLINE_ALL
#include <xxhash.h>

namespace liveupdate::file_hash {
namespace {

// The one loop: read_chunk(buffer, at) reads the bytes at `at` (how far it has read) into buffer.
template <class ReadChunk>
FdHash hash_chunks(ReadChunk read_chunk, std::span<char> buffer, const AfterChunk &after_chunk) {
    XXH3_state_t state;
    XXH3_64bits_reset(&state);
    FdHash out;
    for (off_t at = 0;;) {
        const ssize_t got = read_chunk(buffer, at);
        if (got == 0) break;
        if (got < 0) {
            if (errno == EINTR) continue;
            out.error = errno;
            break;
        }
        const auto size = static_cast<std::size_t>(got);
        XXH3_64bits_update(&state, buffer.data(), size);
        at += got;
        if (after_chunk && !after_chunk(std::span<const char>(buffer.data(), size))) {
            out.stopped = true;
            break;
        }
    }
    out.hash = XXH3_64bits_digest(&state);
    return out;
}

}  // namespace

FdHash hash_fd(int fd, std::span<char> buffer, const AfterChunk &after_chunk) {
    return hash_chunks([fd](std::span<char> into, off_t) { return ::read(fd, into.data(), into.size()); }, buffer,
                       after_chunk);
}

FdHash hash_fd_from_start(int fd, std::span<char> buffer, const AfterChunk &after_chunk) {
    return hash_chunks([fd](std::span<char> into, off_t at) { return ::pread(fd, into.data(), into.size(), at); },
                       buffer, after_chunk);
}

}  // namespace liveupdate::file_hash
