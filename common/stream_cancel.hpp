// Lets another thread end a stream (a watch's long poll, the engine's event
// stream) promptly: cancel() marks it cancelled and wakes the stream where
// it waits, rather than leaving it to notice at its next look (libcurl's
// progress callback comes about once a second on an idle connection, so a
// daemon with a few watches took seconds to stop). [thread-safe]
#pragma once

#include <atomic>
#include <functional>

#include "common/mutex.hpp"

namespace liveupdate::common {

class StreamCancel {
public:
    // Marks it cancelled and wakes the stream waiting on it now: whether one was.
    bool cancel();
    bool cancelled() const noexcept { return cancelled_.load(); }
    // [the stream's thread] While attached, cancel() calls wake, which must
    // end the stream's wait; detached before what wake reaches is gone.
    void attach(std::function<void()> wake);
    void detach();

private:
    Mutex mutex_;
    std::function<void()> wake_ LU_GUARDED_BY(mutex_);
    std::atomic<bool> cancelled_{false};
};

}  // namespace liveupdate::common
