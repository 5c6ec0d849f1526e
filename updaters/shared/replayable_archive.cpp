#include "updaters/shared/replayable_archive.hpp"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <stdexcept>
#include <string>
#include <utility>

namespace liveupdate::updaters {

struct ReplayableArchive::State {
    ArchiveReadFn source;
    ArchiveRewindFn rewind;
    bool read_any = false;  // since the pass began
    // Without a rewind: what the source gave so far, and where the pass is.
    std::unique_ptr<std::FILE, int (*)(std::FILE *)> kept{nullptr, &std::fclose};
    std::int64_t kept_size = 0;
    std::int64_t position = 0;
    bool source_ended = false;

    std::int64_t read(void *buffer, std::size_t capacity) {
        read_any = true;
        if (!kept) return source(buffer, capacity);
        const int fd = ::fileno(kept.get());
        if (position < kept_size) {
            const auto want = std::min<std::int64_t>(static_cast<std::int64_t>(capacity), kept_size - position);
            const auto got = ::pread(fd, buffer, static_cast<std::size_t>(want), position);
            if (got <= 0) return -1;
            position += got;
            return got;
        }
        if (source_ended) return 0;
        const auto got = source(buffer, capacity);
        if (got == 0) source_ended = true;
        if (got <= 0) return got;
        for (std::int64_t done = 0; done < got;) {
            const auto wrote =
                ::pwrite(fd, static_cast<const char *>(buffer) + done, static_cast<std::size_t>(got - done), kept_size);
            if (wrote < 0 && errno == EINTR) continue;
            if (wrote <= 0) return -1;
            done += wrote;
            kept_size += wrote;
        }
        position = kept_size;
        return got;
    }
};

ReplayableArchive::ReplayableArchive(ArchiveReadFn source, ArchiveRewindFn rewind) : state_(std::make_shared<State>()) {
    state_->source = std::move(source);
    state_->rewind = std::move(rewind);
    if (state_->rewind) return;
    state_->kept.reset(std::tmpfile());
    if (!state_->kept)
        throw std::runtime_error(std::string("keeping the update's archive in a temporary file: ") +
                                 std::strerror(errno));
}

ArchiveReadFn ReplayableArchive::pass() {
    State &s = *state_;
    if (s.read_any) {
        if (s.kept) {
            s.position = 0;
        } else if (!s.rewind()) {
            throw std::runtime_error("the host could not start the update's archive again");
        }
        s.read_any = false;
    }
    return [state = state_](void *buffer, std::size_t capacity) { return state->read(buffer, capacity); };
}

}  // namespace liveupdate::updaters
