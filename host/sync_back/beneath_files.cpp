#include "host/sync_back/beneath_files.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <span>
#include <string_view>
#include <vector>

#include "common/file_hash/file_hash.hpp"
#include "common/open_beneath.hpp"
#include "common/sync_back/content_digest.hpp"
#include "common/utf8.hpp"

namespace liveupdate::host::sync_back {
namespace {

using common::OpenedFd;
using common::UniqueFd;
using liveupdate::sync_back::PathState;

std::string errno_text(int code) { return std::strerror(code); }

std::string shown(const std::string &root, std::string_view name) {
    return common::printable_path(root + "/" + std::string(name));
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
    if (parts.size() < 2) return dir;
    // The whole way in one lookup, as confined as one segment's (a burst's
    // files mostly land in folders that exist); a segment at a time only
    // where one is missing and may be made.
    std::string way = parts.front();
    for (std::size_t i = 1; i + 1 < parts.size(); ++i) way += "/" + parts[i];
    OpenedFd whole = common::open_beneath(dir.get(), way, O_PATH | O_DIRECTORY);
    if (whole.ok()) return std::move(whole.fd);
    if (whole.error != ENOENT || !create) {
        errno_out = whole.error;
        return UniqueFd();
    }
    for (std::size_t i = 0; i + 1 < parts.size(); ++i) {
        OpenedFd inner = common::open_beneath(dir.get(), parts[i], O_PATH | O_DIRECTORY);
        if (inner.error == ENOENT && create) {
            if (::mkdirat(dir.get(), parts[i].c_str(), 0755) != 0 && errno != EEXIST) {
                errno_out = errno;
                return UniqueFd();
            }
            inner = common::open_beneath(dir.get(), parts[i], O_PATH | O_DIRECTORY);
        }
        if (!inner.ok()) {
            errno_out = inner.error;
            return UniqueFd();
        }
        dir = std::move(inner.fd);
    }
    return dir;
}

std::string way_refusal(int code) {
    if (code == ELOOP || code == EXDEV) return "a symlink on the way";
    if (code == ENOTDIR) return "something that is not a folder on the way";
    return errno_text(code);
}

std::atomic<unsigned> temporary_count{0};

// This process's id, asked once: the daemon never forks to write.
pid_t own_pid() {
    static const pid_t pid = ::getpid();
    return pid;
}

// A name beside the target for sync back's own use: the forward watcher
// knows it for an echo (came_back.cpp). ".tmp": a write's copy, removed when
// a crash left it (left_temporaries.cpp); ".aside": a file a delete moved
// aside, which may be a developer's save kept there, and so is never removed.
std::string temporary_name(const char *suffix = ".tmp") {
    return ".lu-sync-back-" + std::to_string(own_pid()) + "-" + std::to_string(temporary_count++) + suffix;
}

// The local disk (or the developer's quota) is full: worth trying again later.
bool no_room(int code) { return code == ENOSPC || code == EDQUOT; }

FileStamp stamp_of(const struct stat &st) {
    return {.present = true,
            .device = st.st_dev,
            .inode = st.st_ino,
            .size = st.st_size,
            .mtime = st.st_mtim,
            .ctime = st.st_ctim};
}

bool same_time(const struct timespec &a, const struct timespec &b) {
    return a.tv_sec == b.tv_sec && a.tv_nsec == b.tv_nsec;
}

// Whether the file at name beneath dir is the one judged: the same inode
// (a save by rename makes another), still holding expected_digest (a save
// in place changes it). Not its times: a rename changes its ctime.
bool still_judged(int dir, const std::string &name, const FileStamp &judged, const std::string &expected_digest) {
    const OpenedFd file = common::open_beneath(dir, name, O_RDONLY | O_NONBLOCK | O_NOCTTY);
    struct stat st {};
    if (!file.ok() || ::fstat(file.fd.get(), &st) != 0 || !S_ISREG(st.st_mode)) return false;
    if (st.st_dev != judged.device || st.st_ino != judged.inode) return false;
    std::string error;
    return content_digest(file.fd.get(), error) == expected_digest && error.empty();
}

// A developer's save moved aside (as `aside` in dir) by a delete goes back
// to root/name. Where yet another save came to the name meanwhile, that one
// stays, and the one moved aside is left where it is, named.
std::string put_back(int dir, const std::string &aside, const std::string &root, const std::string &name) {
    const std::string leaf = name.substr(name.rfind('/') + 1);
    std::string kept = shown(root, name) + ": not deleted: it changed locally meanwhile";
    bool back = ::renameat2(dir, aside.c_str(), dir, leaf.c_str(), RENAME_NOREPLACE) == 0;
    int why = back ? 0 : errno;
    if (why == EINVAL) {  // a file system without RENAME_NOREPLACE: looked at first
        struct stat st {};
        if (::fstatat(dir, leaf.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0)
            why = EEXIST;
        else
            back = ::renameat(dir, aside.c_str(), dir, leaf.c_str()) == 0;
        if (!back && why != EEXIST) why = errno;
    }
    if (back) return kept;
    const std::string folder =
        name.find('/') == std::string::npos ? std::string() : name.substr(0, name.rfind('/') + 1);
    const std::string where = shown(root, folder + aside);
    if (why == EEXIST) return kept + " twice: the last save is kept, the one before it as " + where;
    return kept + "; kept as " + where + " (it cannot be put back: " + errno_text(why) + ")";
}

}  // namespace

bool FileStamp::operator==(const FileStamp &other) const {
    if (present != other.present) return false;
    return !present || (device == other.device && inode == other.inode && size == other.size &&
                        same_time(mtime, other.mtime) && same_time(ctime, other.ctime));
}

std::string content_digest(int fd, std::string &error) {
    char buffer[1 << 16];
    const liveupdate::file_hash::FdHash content = liveupdate::file_hash::hash_fd_from_start(fd, buffer);
    if (content.error != 0) {
        error = "cannot read: " + errno_text(content.error);
        return {};
    }
    return liveupdate::sync_back::digest_text(content.hash);
}

BeneathFile open_beneath(const std::string &root, const std::string &name, std::uint64_t max_bytes) {
    BeneathFile out;
    const std::vector<std::string> parts = segments(name);
    int code = 0;
    UniqueFd parent = parent_beneath(root, parts, false, code);
    if (parent.get() < 0) {
        if (code == ENOENT) return out;  // absent
        if (code == ELOOP || code == ENOTDIR || code == EXDEV) {
            out.state = PathState::other();
            return out;
        }
        out.error = shown(root, name) + ": " + errno_text(code);
        return out;
    }
    out.parent = std::move(parent);
    const int folder = out.parent.get();
    struct stat st {};
    if (::fstatat(folder, parts.back().c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) {
        if (errno != ENOENT) out.error = shown(root, name) + ": " + errno_text(errno);
        return out;
    }
    if (!S_ISREG(st.st_mode)) {
        out.state = PathState::other();
        out.folder = S_ISDIR(st.st_mode);
        return out;
    }
    // O_NONBLOCK: if it turned into a FIFO meanwhile, opening it does not wait for a writer.
    OpenedFd file = common::open_beneath(folder, parts.back(), O_RDONLY | O_NONBLOCK | O_NOCTTY);
    if (!file.ok()) {
        if (file.error == ENOENT) return out;
        if (file.error == ELOOP)
            out.state = PathState::other();
        else
            out.error = shown(root, name) + ": cannot open: " + errno_text(file.error);
        return out;
    }
    if (::fstat(file.fd.get(), &st) != 0 || !S_ISREG(st.st_mode)) {
        out.state = PathState::other();
        return out;
    }
    out.mode = st.st_mode & 0777;
    out.size = static_cast<std::uint64_t>(st.st_size);
    out.stamp = stamp_of(st);
    if (out.size > max_bytes) {
        out.state = PathState::file("");
        out.error = shown(root, name) + ": " + std::to_string(out.size) + " bytes, over the limit of " +
                    std::to_string(max_bytes);
        return out;
    }
    std::string error;
    std::string digest = content_digest(file.fd.get(), error);
    if (!error.empty()) {
        out.error = shown(root, name) + ": " + error;
        return out;
    }
    out.state = PathState::file(std::move(digest));
    out.fd = std::move(file.fd);
    return out;
}

liveupdate::sync_back::ContainerRoot folder_beneath(const std::string &root, const std::string &name) {
    const UniqueFd top(::open(root.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC));
    if (top.get() < 0) return {};
    const int fd = name.empty() ? ::open(root.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC)
                                : common::open_beneath(top.get(), name, O_RDONLY | O_DIRECTORY).fd.release();
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

namespace {

// Writes all of data to fd: 0, or the errno that stopped it.
int write_all(int fd, const char *data, std::size_t size) {
    for (std::size_t done = 0; done < size;) {
        const ssize_t w = ::write(fd, data + done, size - done);
        if (w < 0 && errno == EINTR) continue;
        if (w < 0) return errno;
        done += static_cast<std::size_t>(w);
    }
    return 0;
}

// The write of either source: a file's bytes from offset 0 (source), or those in memory (bytes).
WriteResult write_from(const std::string &root, const std::string &name, int source,
                       std::optional<std::string_view> bytes, mode_t mode, const std::string &expected_digest,
                       const FileStamp &replaces, WrittenFileSystems *written, int folder) {
    const std::vector<std::string> parts = segments(name);
    UniqueFd opened;
    if (folder < 0) {
        int code = 0;
        opened = parent_beneath(root, parts, true, code);
        if (opened.get() < 0) return {shown(root, name) + ": not written: " + way_refusal(code), false, no_room(code)};
        folder = opened.get();
    }
    const std::string &leaf = parts.back();
    // A folder from the look that judged it comes with what the look saw at
    // the name; what came there since, the rename below finds.
    struct stat st {};
    if (opened.get() >= 0 && ::fstatat(folder, leaf.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0 && !S_ISREG(st.st_mode))
        return {shown(root, name) + ": not written: the local path is not a regular file"};
    const std::string temporary = temporary_name();
    UniqueFd out(::openat(folder, temporary.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600));
    if (out.get() < 0) {
        const int code = errno;
        return {shown(root, name) + ": cannot create a temporary file beside it: " + errno_text(code), false,
                no_room(code)};
    }
    const auto abandon = [&](const std::string &why, bool local_changed = false, bool full = false) {
        ::unlinkat(folder, temporary.c_str(), 0);
        return WriteResult{shown(root, name) + ": not written: " + why, local_changed, full};
    };
    if (bytes) {
        liveupdate::sync_back::ContentDigest digest;
        digest.update(bytes->data(), bytes->size());
        if (const int code = write_all(out.get(), bytes->data(), bytes->size()); code != 0)
            return abandon("cannot write: " + errno_text(code), false, no_room(code));
        if (digest.text() != expected_digest) return abandon("the container file changed while it was copied");
    } else {
        // Hashed as it is copied: the digest checked is of the very bytes written.
        char buffer[1 << 16];
        int write_error = 0;
        const liveupdate::file_hash::FdHash copied =
            liveupdate::file_hash::hash_fd_from_start(source, buffer, [&](std::span<const char> chunk) {
                write_error = write_all(out.get(), chunk.data(), chunk.size());
                return write_error == 0;
            });
        if (copied.error != 0) return abandon("cannot read the container file: " + errno_text(copied.error));
        if (write_error != 0) return abandon("cannot write: " + errno_text(write_error), false, no_room(write_error));
        if (liveupdate::sync_back::digest_text(copied.hash) != expected_digest)
            return abandon("the container file changed while it was copied");
    }
    if (::fchmod(out.get(), mode & 0777) != 0) return abandon("cannot set its mode: " + errno_text(errno));
    // The copy took a while: the target must still be the file judged (or
    // none), looked at again just before the rename. Where none was, the
    // rename itself refuses to replace one that came meanwhile.
    const auto changed = [&] { return abandon("it changed locally meanwhile", true); };
    const auto in_place = [&] {
        if (written != nullptr) written->add(folder, shown(root, name));
        return WriteResult{};
    };
    if (!replaces.present) {
        if (::renameat2(folder, temporary.c_str(), folder, leaf.c_str(), RENAME_NOREPLACE) == 0) return in_place();
        if (errno == EEXIST) return changed();
        // A file system without RENAME_NOREPLACE: looked at, as a present one is.
        if (errno != EINVAL) return abandon("cannot rename into place: " + errno_text(errno), false, no_room(errno));
    }
    struct stat now {};
    const bool there = ::fstatat(folder, leaf.c_str(), &now, AT_SYMLINK_NOFOLLOW) == 0;
    if (there != replaces.present || (there && !(stamp_of(now) == replaces))) return changed();
    if (::renameat(folder, temporary.c_str(), folder, leaf.c_str()) != 0)
        return abandon("cannot rename into place: " + errno_text(errno), false, no_room(errno));
    return in_place();
}

}  // namespace

WriteResult write_beneath(const std::string &root, const std::string &name, int source, mode_t mode,
                          const std::string &expected_digest, const FileStamp &replaces, WrittenFileSystems *written,
                          int folder) {
    return write_from(root, name, source, std::nullopt, mode, expected_digest, replaces, written, folder);
}

WriteResult write_beneath(const std::string &root, const std::string &name, std::string_view source, mode_t mode,
                          const std::string &expected_digest, const FileStamp &replaces, WrittenFileSystems *written,
                          int folder) {
    return write_from(root, name, -1, source, mode, expected_digest, replaces, written, folder);
}

std::string delete_beneath(const std::string &root, const std::string &name, const std::string &expected_digest,
                           WrittenFileSystems *written) {
    const BeneathFile judged = open_beneath(root, name, UINT64_MAX);
    if (!judged.error.empty()) return judged.error;
    if (judged.state.kind == PathState::Kind::absent) return {};
    if (judged.state != PathState::file(expected_digest))
        return shown(root, name) + ": not deleted: it changed locally meanwhile";
    const std::vector<std::string> parts = segments(name);
    int code = 0;
    const UniqueFd parent = parent_beneath(root, parts, false, code);
    if (parent.get() < 0) return shown(root, name) + ": not deleted: " + way_refusal(code);
    const std::string &leaf = parts.back();
    // Moved aside before it is deleted: a developer's save landing from now
    // on lands at the name and stays. One that landed since the look above
    // is what was moved aside, and is put back.
    const std::string aside = temporary_name(".aside");
    if (::renameat(parent.get(), leaf.c_str(), parent.get(), aside.c_str()) != 0) {
        const int why = errno;
        return why == ENOENT ? std::string() : shown(root, name) + ": cannot delete: " + errno_text(why);
    }
    if (!still_judged(parent.get(), aside, judged.stamp, expected_digest))
        return put_back(parent.get(), aside, root, name);
    if (::unlinkat(parent.get(), aside.c_str(), 0) != 0 && errno != ENOENT)
        return shown(root, name) + ": cannot delete: " + errno_text(errno);
    if (written != nullptr) written->add(parent.get(), shown(root, name));
    return {};
}

}  // namespace liveupdate::host::sync_back
