#include "common/open_beneath.hpp"

#include <fcntl.h>
#include <linux/openat2.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>

namespace liveupdate::common {
namespace {

OpenedFd open_resolved(int dir, const std::string &name, std::uint64_t flags, std::uint64_t resolve) {
    open_how how{};
    how.flags = flags | O_CLOEXEC;
    how.resolve = resolve;
    long fd;
    do fd = ::syscall(SYS_openat2, dir, name.c_str(), &how, sizeof how);
    while (fd < 0 && errno == EINTR);
    if (fd < 0) return {UniqueFd(), errno};
    return {UniqueFd(static_cast<int>(fd)), 0};
}

}  // namespace

OpenedFd open_beneath(int dir, const std::string &name, std::uint64_t flags) {
    // RESOLVE_NO_SYMLINKS implies RESOLVE_NO_MAGICLINKS; said anyway, as the callers always did.
    return open_resolved(dir, name, flags | O_NOFOLLOW, RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS);
}

OpenedFd open_in_root(int dir, const std::string &name, std::uint64_t flags) {
    return open_resolved(dir, name, flags, RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS);
}

}  // namespace liveupdate::common
