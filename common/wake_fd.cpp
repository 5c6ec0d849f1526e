#include "common/wake_fd.hpp"

#include <sys/eventfd.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <system_error>

namespace liveupdate::common {

WakeFd::WakeFd() : fd_(::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK)) {
    if (fd_.get() < 0) throw std::system_error(errno, std::generic_category(), "eventfd for a wait's wake-up");
}

void WakeFd::wake() noexcept {
    woken_ = true;
    const std::uint64_t one = 1;
    // Nothing reads it: it stays readable. A full counter (never, at one per stop) is readable too.
    while (::write(fd_.get(), &one, sizeof one) < 0 && errno == EINTR) {
    }
}

}  // namespace liveupdate::common
