#include "host/sync_back/beneath_files.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <string_view>
#include <vector>

#include "common/sync_back/content_digest.hpp"
#include "common/utf8.hpp"

namespace liveupdate::host::sync_back {
namespace {

using common::UniqueFd;
using liveupdate::sync_back::PathState;

std::string errno_text(int code) { return std::strerror(code); }

std::string shown(const std::string &root, std::string_view name) {
    return common::printable_path(root + "/" + std::string(name));
}

int open2(int dir, const std::string &name, std::uint64_t flags) {
    open_how how{};
    how.flags = flags | O_CLOEXEC | O_NOFOLLOW;
    how.resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS;
    long fd;
    do fd = ::syscall(SYS_openat2, dir, name.c_str(), &how, sizeof how);
    while (fd < 0 && errno == EINTR);
    return static_cast<int>(fd);
}

std::vector<std::string> segments(const std::string &name) {
    std::vector<std::string> out;
    std::size_t begin = 0;
    while (begin <= name.size()) {
        std::size_t end = name.find('/', begin);
        if (end == std::string::npos) end = name.size();
        out.push_back(name.substr(begin, end - begin));
        begin = end + 1;
    }
    return out;
}

// The folder holding name's last segment, opened beneath root; `create`:
// missing folders are made. errno_out: ENOENT when missing (not created),
// ELOOP a symlink on the way, ENOTDIR a non-folder on the way.
UniqueFd parent_beneath(const std::string &root, const std::vector<std::string> &parts, bool create, int &errno_out) {
    UniqueFd dir(::open(root.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC));
    if (dir.get() < 0) {
        errno_out = errno;
        return dir;
    }
    for (std::size_t i = 0; i + 1 < parts.size(); ++i) {
        int fd = open2(dir.get(), parts[i], O_PATH | O_DIRECTORY);
        if (fd < 0 && errno == ENOENT && create) {
            if (::mkdirat(dir.get(), parts[i].c_str(), 0755) != 0 && errno != EEXIST) {
                errno_out = errno;
                return UniqueFd();
            }
            fd = open2(dir.get(), parts[i], O_PATH | O_DIRECTORY);
        }
        if (fd < 0) {
            errno_out = errno;
            return UniqueFd();
        }
        dir.reset(fd);
    }
    return dir;
}

std::string way_refusal(int code) {
    if (code == ELOOP || code == EXDEV) return "a symlink on the way";
    if (code == ENOTDIR) return "something that is not a folder on the way";
    return errno_text(code);
}

std::atomic<unsigned> temporary_count{0};

}  // namespace

std::string content_digest(int fd, std::string &error) {
    liveupdate::sync_back::ContentDigest digest;
    char buffer[1 << 16];
    for (off_t at = 0;;) {
        const ssize_t n = ::pread(fd, buffer, sizeof buffer, at);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) {
            error = "cannot read: " + errno_text(errno);
            return {};
        }
        if (n == 0) break;
        digest.update(buffer, static_cast<std::size_t>(n));
        at += n;
    }
    return digest.text();
}

BeneathFile open_beneath(const std::string &root, const std::string &name, std::uint64_t max_bytes) {
    BeneathFile out;
    const std::vector<std::string> parts = segments(name);
    int code = 0;
    const UniqueFd parent = parent_beneath(root, parts, false, code);
    if (parent.get() < 0) {
        if (code == ENOENT) return out;  // absent
        if (code == ELOOP || code == ENOTDIR || code == EXDEV) {
            out.state = PathState::other();
            return out;
        }
        out.error = shown(root, name) + ": " + errno_text(code);
        return out;
    }
    struct stat st {};
    if (::fstatat(parent.get(), parts.back().c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) {
        if (errno != ENOENT) out.error = shown(root, name) + ": " + errno_text(errno);
        return out;
    }
    if (!S_ISREG(st.st_mode)) {
        out.state = PathState::other();
        out.folder = S_ISDIR(st.st_mode);
        return out;
    }
    // O_NONBLOCK: if it turned into a FIFO meanwhile, opening it does not wait for a writer.
    UniqueFd fd(open2(parent.get(), parts.back(), O_RDONLY | O_NONBLOCK | O_NOCTTY));
    if (fd.get() < 0) {
        if (errno == ENOENT) return out;
        if (errno == ELOOP)
            out.state = PathState::other();
        else
            out.error = shown(root, name) + ": cannot open: " + errno_text(errno);
        return out;
    }
    if (::fstat(fd.get(), &st) != 0 || !S_ISREG(st.st_mode)) {
        out.state = PathState::other();
        return out;
    }
    out.mode = st.st_mode & 0777;
    out.size = static_cast<std::uint64_t>(st.st_size);
    if (out.size > max_bytes) {
        out.state = PathState::file("");
        out.error = shown(root, name) + ": " + std::to_string(out.size) + " bytes, over the limit of " +
                    std::to_string(max_bytes);
        return out;
    }
    std::string error;
    std::string digest = content_digest(fd.get(), error);
    if (!error.empty()) {
        out.error = shown(root, name) + ": " + error;
        return out;
    }
    out.state = PathState::file(std::move(digest));
    out.fd = std::move(fd);
    return out;
}

liveupdate::sync_back::ContainerRoot folder_beneath(const std::string &root, const std::string &name) {
    const UniqueFd top(::open(root.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC));
    if (top.get() < 0) return {};
    const int fd = name.empty() ? ::open(root.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC)
                                : open2(top.get(), name, O_RDONLY | O_DIRECTORY);
    if (fd < 0) return {};
    DIR *dir = ::fdopendir(fd);
    if (dir == nullptr) {
        ::close(fd);
        return {};
    }
    bool empty = true;
    while (const dirent *entry = ::readdir(dir)) {
        const std::string_view entry_name = entry->d_name;
        if (entry_name != "." && entry_name != "..") {
            empty = false;
            break;
        }
    }
    ::closedir(dir);
    return {.exists = true, .empty = empty};
}

std::string write_beneath(const std::string &root, const std::string &name, int source, mode_t mode,
                          const std::string &expected_digest) {
    const std::vector<std::string> parts = segments(name);
    int code = 0;
    const UniqueFd parent = parent_beneath(root, parts, true, code);
    if (parent.get() < 0) return shown(root, name) + ": not written: " + way_refusal(code);
    const std::string &leaf = parts.back();
    struct stat st {};
    if (::fstatat(parent.get(), leaf.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0 && !S_ISREG(st.st_mode))
        return shown(root, name) + ": not written: the local path is not a regular file";
    const std::string temporary =
        ".lu-sync-back-" + std::to_string(::getpid()) + "-" + std::to_string(temporary_count++) + ".tmp";
    UniqueFd out(::openat(parent.get(), temporary.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600));
    if (out.get() < 0) return shown(root, name) + ": cannot create a temporary file beside it: " + errno_text(errno);
    const auto abandon = [&](const std::string &why) {
        ::unlinkat(parent.get(), temporary.c_str(), 0);
        return shown(root, name) + ": not written: " + why;
    };
    liveupdate::sync_back::ContentDigest digest;
    char buffer[1 << 16];
    for (off_t at = 0;;) {
        const ssize_t n = ::pread(source, buffer, sizeof buffer, at);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) return abandon("cannot read the container file: " + errno_text(errno));
        if (n == 0) break;
        digest.update(buffer, static_cast<std::size_t>(n));
        for (ssize_t done = 0; done < n;) {
            const ssize_t w = ::write(out.get(), buffer + done, static_cast<std::size_t>(n - done));
            if (w < 0 && errno == EINTR) continue;
            if (w < 0) return abandon("cannot write: " + errno_text(errno));
            done += w;
        }
        at += n;
    }
    if (digest.text() != expected_digest) return abandon("the container file changed while it was copied");
    if (::fchmod(out.get(), mode & 0777) != 0) return abandon("cannot set its mode: " + errno_text(errno));
    if (::renameat(parent.get(), temporary.c_str(), parent.get(), leaf.c_str()) != 0)
        return abandon("cannot rename into place: " + errno_text(errno));
    return {};
}

std::string delete_beneath(const std::string &root, const std::string &name, const std::string &expected_digest) {
    BeneathFile now = open_beneath(root, name, UINT64_MAX);
    if (!now.error.empty()) return now.error;
    if (now.state.kind == PathState::Kind::absent) return {};
    if (now.state != PathState::file(expected_digest))
        return shown(root, name) + ": not deleted: it changed locally meanwhile";
    const std::vector<std::string> parts = segments(name);
    int code = 0;
    const UniqueFd parent = parent_beneath(root, parts, false, code);
    if (parent.get() < 0) return shown(root, name) + ": not deleted: " + way_refusal(code);
    if (::unlinkat(parent.get(), parts.back().c_str(), 0) != 0 && errno != ENOENT)
        return shown(root, name) + ": cannot delete: " + errno_text(errno);
    return {};
}

}  // namespace liveupdate::host::sync_back
