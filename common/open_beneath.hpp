// Opening a name through a folder's descriptor with openat2(2), the lookup
// itself confined to that folder: the one place the host, the local updater
// and the agent client reach files in a folder a container (or a developer's
// tree) controls, where a symlink or `..` placed there must not lead out.
// Needs Linux 5.6 (openat2); an older kernel's ENOSYS is returned like any
// other errno. EINTR (a slow file system, a signal) is retried.
#pragma once

#include <cstdint>
#include <string>

#include "common/unique_fd.hpp"

namespace liveupdate::common {

// What an open gave: fd open, or error the errno saying why not.
struct OpenedFd {
    UniqueFd fd;
    int error = 0;

    bool ok() const { return fd.get() >= 0; }
};

// name beneath dir, no symlink followed anywhere (RESOLVE_BENEATH |
// RESOLVE_NO_SYMLINKS): a symlink on the way, or at the end, is ELOOP; a
// `..` or an absolute name that leaves dir is EXDEV. flags are open(2)'s,
// O_CLOEXEC and O_NOFOLLOW added; with O_PATH, a symlink at the end is opened
// as itself (fstat says S_ISLNK), as O_PATH | O_NOFOLLOW does.
OpenedFd open_beneath(int dir, const std::string &name, std::uint64_t flags);

// name resolved as if dir were the root directory (RESOLVE_IN_ROOT), as a
// container resolves its own paths: symlinks are followed, but `..`, an
// absolute name or an absolute symlink's target never lead above dir. A magic
// link (/proc/self/fd/N) is refused (ELOOP). flags are open(2)'s, O_CLOEXEC
// added.
OpenedFd open_in_root(int dir, const std::string &name, std::uint64_t flags);

}  // namespace liveupdate::common
