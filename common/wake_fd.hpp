// A descriptor that another thread makes readable for good: polled beside
// the descriptors a wait is there for, it ends that wait at once when its
// owner stops, so that the wait need not wake in short steps to look.
// [thread-safe]
#pragma once

#include <atomic>

#include "common/unique_fd.hpp"

namespace liveupdate::common {

class WakeFd {
public:
    // Throws std::system_error when no eventfd can be made.
    WakeFd();

    // Readable from now on.
    void wake() noexcept;
    bool woken() const noexcept { return woken_.load(); }
    int fd() const noexcept { return fd_.get(); }

private:
    UniqueFd fd_;
    std::atomic<bool> woken_{false};
};

}  // namespace liveupdate::common
