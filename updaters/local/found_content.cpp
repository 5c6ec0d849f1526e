#include "updaters/local/found_content.hpp"

#include <fcntl.h>
#include <linux/openat2.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstring>

#include "common/file_hash/file_hash.hpp"
#include "common/sync_back/content_digest.hpp"
#include "updaters/local/container_paths.hpp"

namespace liveupdate::local {
namespace {

using common::UniqueFd;
using Kind = FoundContent::Kind;

// name beneath dir, never through a symlink nor out of dir.
int open_beneath(int dir, const std::string &name, std::uint64_t flags) {
    open_how how{};
    how.flags = flags | O_CLOEXEC | O_NOFOLLOW;
    how.resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS;
    long fd;
    do fd = ::syscall(SYS_openat2, dir, name.c_str(), &how, sizeof how);
    while (fd < 0 && errno == EINTR);
    return static_cast<int>(fd);
}

FoundContent other(std::string what) { return {Kind::other, 0, std::move(what)}; }

// The XXH3-64 of what fd holds, read to its end.
FoundContent digest_of(int fd, const std::string &shown) {
    std::array<char, 1 << 16> buffer{};
    const file_hash::FdHash content = file_hash::hash_fd(fd, buffer);
    if (content.error != 0)
        return other("a file that cannot be read (" + shown + ": " + std::strerror(content.error) + ")");
    return {Kind::file, content.hash, ""};
}

std::string hex(std::uint64_t digest) { return sync_back::digest_text(digest); }

}  // namespace

FoundContent found_beneath(const std::string &root, const std::string &relative) {
    const std::string shown = under_root(root, relative);
    const UniqueFd root_fd(::open(root.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC));
    if (root_fd.get() < 0) return other("no container root (" + root + ": " + std::strerror(errno) + ")");
    // O_PATH first: opening a FIFO or a device to look at it could block or act.
    const UniqueFd path_fd(open_beneath(root_fd.get(), relative, O_PATH));
    if (path_fd.get() < 0) {
        if (errno == ENOENT || errno == ENOTDIR) return {};
        if (errno == ELOOP || errno == EXDEV) return other("a symlink (at or on the way to " + shown + ")");
        return other("something that cannot be opened (" + shown + ": " + std::strerror(errno) + ")");
    }
    struct stat st {};
    if (::fstat(path_fd.get(), &st) != 0) return other("something that cannot be looked at (" + shown + ")");
    if (S_ISDIR(st.st_mode)) return other("a folder");
    if (!S_ISREG(st.st_mode)) return other("neither a file nor a folder");
    const UniqueFd file(open_beneath(root_fd.get(), relative, O_RDONLY | O_NONBLOCK));
    if (file.get() < 0 || ::fstat(file.get(), &st) != 0 || !S_ISREG(st.st_mode))
        return other("a file that cannot be read (" + shown + ")");
    return digest_of(file.get(), shown);
}

std::string unexpected_content(const updater::ExpectedContent &expected, const FoundContent &found) {
    using Expected = updater::ExpectedContent::Kind;
    switch (expected.kind) {
    case Expected::any: return "";
    case Expected::absent:
        if (found.kind == Kind::absent) return "";
        if (found.kind == Kind::file) return "a file the app wrote (xxh3 " + hex(found.digest) + "), none agreed on";
        return found.what + " where none was agreed on";
    case Expected::digest:
        if (found.kind == Kind::file && found.digest == expected.digest) return "";
        if (found.kind == Kind::file)
            return "content the app changed (xxh3 " + hex(found.digest) + ", agreed " + hex(expected.digest) + ")";
        if (found.kind == Kind::absent) return "nothing: the app deleted the agreed file";
        return found.what + " where the agreed file was";
    }
    return "";
}

UniqueFd parent_beneath(const std::string &root, const std::string &relative, std::string &error) {
    const std::size_t slash = relative.rfind('/');
    UniqueFd root_fd(::open(root.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC));
    if (root_fd.get() < 0 || slash == std::string::npos) {
        if (root_fd.get() < 0) error = "cannot open container root " + root + ": " + std::strerror(errno);
        return root_fd;
    }
    const std::string parent = relative.substr(0, slash);
    UniqueFd fd(open_beneath(root_fd.get(), parent, O_PATH | O_DIRECTORY));
    if (fd.get() < 0) error = "cannot open " + under_root(root, parent) + ": " + std::strerror(errno);
    return fd;
}

}  // namespace liveupdate::local
