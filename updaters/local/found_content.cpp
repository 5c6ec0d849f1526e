#include "updaters/local/found_content.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstring>

#include "common/file_hash/file_hash.hpp"
#include "common/open_beneath.hpp"
#include "common/sync_back/content_digest.hpp"
#include "updaters/local/container_paths.hpp"

namespace liveupdate::local {
namespace {

using common::open_beneath;
using common::UniqueFd;
using Kind = FoundContent::Kind;

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
    const common::OpenedFd path = open_beneath(root_fd.get(), relative, O_PATH);
    if (!path.ok()) {
        if (path.error == ENOENT || path.error == ENOTDIR) return {};
        if (path.error == ELOOP || path.error == EXDEV) return other("a symlink (at or on the way to " + shown + ")");
        return other("something that cannot be opened (" + shown + ": " + std::strerror(path.error) + ")");
    }
    struct stat st {};
    if (::fstat(path.fd.get(), &st) != 0) return other("something that cannot be looked at (" + shown + ")");
    if (S_ISDIR(st.st_mode)) return other("a folder");
    if (!S_ISREG(st.st_mode)) return other("neither a file nor a folder");
    const common::OpenedFd file = open_beneath(root_fd.get(), relative, O_RDONLY | O_NONBLOCK);
    if (!file.ok() || ::fstat(file.fd.get(), &st) != 0 || !S_ISREG(st.st_mode))
        return other("a file that cannot be read (" + shown + ")");
    return digest_of(file.fd.get(), shown);
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
    common::OpenedFd folder = open_beneath(root_fd.get(), parent, O_PATH | O_DIRECTORY);
    if (!folder.ok()) error = "cannot open " + under_root(root, parent) + ": " + std::strerror(folder.error);
    return std::move(folder.fd);
}

}  // namespace liveupdate::local
