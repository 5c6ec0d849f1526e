// The two ends of a streamed tar archive: how the host writes one and the
// updaters and the agent client read and re-write it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>

namespace liveupdate::common {

// Fills buffer with up to capacity bytes of a tar archive: the count, 0 at
// its end, -1 on failure.
using ArchiveReadFn = std::function<std::int64_t(void *buffer, std::size_t capacity)>;
// Takes all the bytes or throws (to abort the archive).
using ArchiveWriteFn = std::function<void(const char *data, std::size_t size)>;

}  // namespace liveupdate::common
