#include "updaters/shared/replayable_archive.hpp"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace liveupdate::updaters {

namespace {

// Each read of the source asks for at least this much: the host's stream
// hands over one buffer per read (a thread switch each), which for small reads
// under load made the switches, not the bytes, the cost. agent_apply reads as
// much, so its reads go to the source directly.
constexpr std::size_t kReadAhead = std::size_t{1} << 20;

}  // namespace

struct ReplayableArchive::State {
    common::ArchiveReadFn source;
    ArchiveRewindFn rewind;
    bool read_any = false;  // since the pass began
    bool source_ended = false;
    // Made on the first read smaller than kReadAhead (agent_apply's never
    // are: 1 MiB per replica's update for nothing); not zeroed: only what the
    // source wrote is read.
    std::unique_ptr<char[]> ahead;
    std::size_t ahead_begin = 0;  // what of `ahead` is not handed out yet
    std::size_t ahead_end = 0;
    // Without a rewind: what the source gave so far, and where the pass is in it.
    std::unique_ptr<std::FILE, int (*)(std::FILE *)> kept{nullptr, &std::fclose};
    std::int64_t kept_size = 0;
    std::int64_t position = 0;

    std::int64_t read(void *buffer, std::size_t capacity) {
        read_any = true;
        if (ahead_begin == ahead_end) {
            if (kept && position < kept_size) return replay(buffer, capacity);
            // A reader asking for as much as read-ahead would get is filled directly: a large file is not copied once
            // more.
            if (capacity >= kReadAhead) return take_from_source(static_cast<char *>(buffer), capacity);
            if (const auto filled = fill(); filled <= 0) return filled;
        }
        const std::size_t n = std::min(capacity, ahead_end - ahead_begin);
        std::memcpy(buffer, ahead.get() + ahead_begin, n);
        ahead_begin += n;
        return static_cast<std::int64_t>(n);
    }

    void restart() {
        ahead_begin = ahead_end = 0;
        position = 0;
        if (!kept) source_ended = false;
    }

private:
    std::int64_t replay(void *buffer, std::size_t capacity) {
        const auto want = std::min<std::int64_t>(static_cast<std::int64_t>(capacity), kept_size - position);
        const auto got = ::pread(::fileno(kept.get()), buffer, static_cast<std::size_t>(want), position);
        if (got <= 0) return -1;
        position += got;
        return got;
    }

    // The next bytes of the source into `ahead`: their count, 0 at the end, -1 on error.
    std::int64_t fill() {
        if (!ahead) ahead = std::make_unique_for_overwrite<char[]>(kReadAhead);
        const auto got = take_from_source(ahead.get(), kReadAhead);
        if (got <= 0) return got;
        ahead_begin = 0;
        ahead_end = static_cast<std::size_t>(got);
        return got;
    }

    // The next bytes of the source into `into` (and the kept file): their count, 0 at the end, -1 on error.
    std::int64_t take_from_source(char *into, std::size_t capacity) {
        if (source_ended) return 0;
        const auto got = source(into, capacity);
        if (got == 0) source_ended = true;
        if (got <= 0 || !kept) return got;
        for (std::int64_t done = 0; done < got;) {
            const auto wrote =
                ::pwrite(::fileno(kept.get()), into + done, static_cast<std::size_t>(got - done), kept_size);
            if (wrote < 0 && errno == EINTR) continue;
            if (wrote <= 0) return -1;
            done += wrote;
            kept_size += wrote;
        }
        position = kept_size;
        return got;
    }
};

ReplayableArchive::ReplayableArchive(common::ArchiveReadFn source, ArchiveRewindFn rewind)
    : state_(std::make_shared<State>()) {
    state_->source = std::move(source);
    state_->rewind = std::move(rewind);
    if (state_->rewind) return;
    state_->kept.reset(std::tmpfile());
    if (!state_->kept)
        throw std::runtime_error(std::string("keeping the update's archive in a temporary file: ") +
                                 std::strerror(errno));
}

common::ArchiveReadFn ReplayableArchive::pass() {
    State &s = *state_;
    if (s.read_any) {
        if (!s.kept && !s.rewind()) throw std::runtime_error("the host could not start the update's archive again");
        s.restart();
        s.read_any = false;
    }
    return [state = state_](void *buffer, std::size_t capacity) { return state->read(buffer, capacity); };
}

}  // namespace liveupdate::updaters
