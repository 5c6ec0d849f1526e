#include "common/file_hash/file_hash.hpp"

#include <unistd.h>

#include <cerrno>

#define XXH_INLINE_ALL
#include <xxhash.h>

namespace liveupdate::file_hash {

FdHash hash_fd(int fd, std::span<char> buffer, const AfterChunk &after_chunk) {
    XXH3_state_t state;
    XXH3_64bits_reset(&state);
    FdHash out;
    for (;;) {
        const auto got = ::read(fd, buffer.data(), buffer.size());
        if (got == 0) break;
        if (got < 0) {
            if (errno == EINTR) continue;
            out.error = errno;
            break;
        }
        const auto size = static_cast<std::size_t>(got);
        XXH3_64bits_update(&state, buffer.data(), size);
        if (after_chunk && !after_chunk(size)) {
            out.stopped = true;
            break;
        }
    }
    out.hash = XXH3_64bits_digest(&state);
    return out;
}

}  // namespace liveupdate::file_hash
