#include "host/core/tar_tree_writer.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <exception>
#include <memory>
#include <optional>
#include <span>
#include <system_error>
#include <unordered_map>

#include "common/sync_back/content_digest.hpp"
#include "common/utf8.hpp"
#include "host/core/host_error.hpp"
#include "host/core/tar_header.hpp"

namespace liveupdate::host {

namespace {

constexpr const char *kBuild = "cannot build the archive";
constexpr std::size_t kFileBuffer = std::size_t{256} * 1024;

std::string errno_text(int error) { return std::strerror(error); }

class FileDescriptor {
public:
    explicit FileDescriptor(int fd) : fd_(fd) {}
    FileDescriptor(const FileDescriptor &) = delete;
    FileDescriptor &operator=(const FileDescriptor &) = delete;
    ~FileDescriptor() {
        if (fd_ >= 0) ::close(fd_);
    }
    int get() const { return fd_; }

private:
    int fd_;
};

// One tar being written into a sink. A failure leaves the archive without
// its end-of-archive marker (the exception passes close() by), so no reader
// can take a truncated archive for a complete one.
class TarWriter {
public:
    TarWriter(ArchiveSink &sink, const LogSinkFn &log, const EntryHooks &hooks)
        : sink_(sink), log_(log), hooks_(hooks) {}
    TarWriter(const TarWriter &) = delete;
    TarWriter &operator=(const TarWriter &) = delete;

    // covers_others: other mappings lie beneath this one (a folder moved in is
    // listed with each of its files); the entries its walk writes are kept so
    // that those are not archived a second time.
    void add_mapping(const updater::CopyMapping &copy, const common::IgnoreSet &filter, bool covers_others) {
        std::string name = copy.container_path;
        name.erase(0, name.find_first_not_of('/'));
        std::string local = copy.local_path;
        struct stat st {};
        if (::lstat(local.c_str(), &st) != 0) {
            if (errno == ENOENT || errno == ENOTDIR) {
                log_(common::LogLevel::warn, "skipping " + local + ": it no longer exists");
                return;
            }
            unreadable(local, errno_text(errno));
            return;
        }
        // A file mapped to "DIR/" goes into DIR (P01); a file entry named
        // with a trailing "/" would make the archive unreadable.
        if (!S_ISDIR(st.st_mode) && !name.empty() && name.back() == '/')
            name += local.substr(local.find_last_of('/') + 1);
        if (const auto it = walked_.find(name); it != walked_.end() && it->second == local) return;
        recording_ = covers_others;
        add_path(-1, local, local, name, st, filter);
        recording_ = false;
    }

    ArchiveSummary close() {
        zeros(2 * kTarBlock);
        return summary_;
    }

private:
    void write(const char *data, std::size_t size) {
        sink_.write(data, size);
        summary_.bytes += size;
    }

    static void pad_digest(sync_back::ContentDigest &digest, int64_t size) {
        static constexpr char kZeros[kTarBlock] = {};
        for (; size > 0; size -= static_cast<int64_t>(sizeof kZeros))
            digest.update(kZeros, static_cast<size_t>(std::min<int64_t>(size, sizeof kZeros)));
    }

    void zeros(std::size_t size) {
        static constexpr char kZeros[2 * kTarBlock] = {};
        for (std::size_t n; size > 0; size -= n) {
            n = std::min(size, sizeof kZeros);
            write(kZeros, n);
        }
    }

    void header(const std::string &name, const std::string &path, const struct stat &st, TarType type, int64_t size,
                std::string_view symlink_target) {
        if (hooks_.before_entry) hooks_.before_entry("/" + name);
        if (recording_) walked_.emplace(name, path);
        header_.clear();
        append_tar_header(header_, TarEntry{.name = name,
                                            .type = type,
                                            .perm = static_cast<std::uint32_t>(st.st_mode & 07777),
                                            .size = size,
                                            .mtime = st.st_mtim.tv_sec,
                                            .link = symlink_target});
        write(header_.data(), header_.size());
        ++summary_.entries;
    }

    // dir_fd/leaf: where to open the path relative to (-1: path is absolute).
    void add_path(int dir_fd, const std::string &leaf, const std::string &path, const std::string &name,
                  const struct stat &st, const common::IgnoreSet &filter) {
        if (S_ISREG(st.st_mode)) {
            add_file(dir_fd, leaf, path, name, filter);
        } else if (S_ISLNK(st.st_mode)) {
            add_symlink(dir_fd, leaf, path, name, st, filter);
        } else if (S_ISDIR(st.st_mode)) {
            add_directory(dir_fd, leaf, path, name, filter, true);
        } else {
            log_(common::LogLevel::warn, "skipping " + path + ": not a regular file, directory or symlink");
        }
    }

    void add_file(int dir_fd, const std::string &leaf, const std::string &path, const std::string &name,
                  const common::IgnoreSet &filter) {
        // O_NONBLOCK: a file replaced by a FIFO since it was listed must not block the open.
        constexpr int kFlags = O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC;
        int fd = dir_fd < 0 ? ::open(path.c_str(), kFlags) : ::openat(dir_fd, leaf.c_str(), kFlags);
        if (fd < 0) {
            if (errno == ENOENT) {
                log_(common::LogLevel::warn, "skipping " + path + ": it no longer exists");
                return;
            }
            if (errno == ELOOP) {
                add_changed_kind(dir_fd, leaf, path, name, filter);
                return;
            }
            unreadable(path, "cannot open: " + errno_text(errno));
            return;
        }
        FileDescriptor file(fd);
        struct stat st {};
        if (::fstat(fd, &st) != 0) {
            unreadable(path, errno_text(errno));
            return;
        }
        if (!S_ISREG(st.st_mode)) {
            add_changed_kind(dir_fd, leaf, path, name, filter);
            return;
        }
        std::optional<sync_back::ContentDigest> digest;
        if (hooks_.file_digest) digest.emplace();
        // An empty file's digest is known before its header leaves.
        if (digest && st.st_size == 0) hooks_.file_digest("/" + name, digest->text());
        header(name, path, st, TarType::file, st.st_size, {});
        int64_t left = st.st_size;
        while (left > 0) {
            const std::span<char> room = sink_.space(static_cast<size_t>(std::min<int64_t>(left, kFileBuffer)));
            ssize_t n = ::read(fd, room.data(), room.size());
            if (n < 0 && errno == EINTR) continue;
            if (n < 0) throw HostError(kBuild, path, "cannot read: " + errno_text(errno));
            if (n == 0) {  // shrank while archived: padded to the size in its header
                // The container gets those zeros: its digest says so, or the next
                // save's guard would take them for the app's change.
                if (digest) {
                    pad_digest(*digest, left);
                    hooks_.file_digest("/" + name, digest->text());
                }
                break;
            }
            if (digest) {
                digest->update(room.data(), static_cast<size_t>(n));
                if (left == n) hooks_.file_digest("/" + name, digest->text());  // before its last bytes leave
            }
            write(room.data(), static_cast<size_t>(n));
            left -= n;
        }
        zeros(static_cast<std::size_t>(left) + tar_padding(st.st_size));
    }

    void add_symlink(int dir_fd, const std::string &leaf, const std::string &path, const std::string &name,
                     const struct stat &st, const common::IgnoreSet &filter) {
        std::string target(static_cast<size_t>(st.st_size > 0 ? st.st_size : 255) + 1, '\0');
        ssize_t n = dir_fd < 0 ? ::readlink(path.c_str(), target.data(), target.size())
                               : ::readlinkat(dir_fd, leaf.c_str(), target.data(), target.size());
        if (n < 0) {
            if (errno == ENOENT) {
                log_(common::LogLevel::warn, "skipping " + path + ": it no longer exists");
                return;
            }
            if (errno == EINVAL) {  // no longer a symlink
                add_changed_kind(dir_fd, leaf, path, name, filter);
                return;
            }
            unreadable(path, "cannot read the link: " + errno_text(errno));
            return;
        }
        target.resize(static_cast<size_t>(n));
        header(name, path, st, TarType::symlink, 0, target);
    }

    void add_directory(int dir_fd, const std::string &leaf, const std::string &path, const std::string &name,
                       const common::IgnoreSet &filter, bool emit_entry) {
        int fd = dir_fd < 0 ? ::open(path.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
                            : ::openat(dir_fd, leaf.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (fd < 0) {
            if (errno == ENOENT) {
                log_(common::LogLevel::warn, "skipping " + path + ": it no longer exists");
                return;
            }
            if (errno == ENOTDIR || errno == ELOOP) {
                add_changed_kind(dir_fd, leaf, path, name, filter);
                return;
            }
            unreadable(path, "cannot open the directory: " + errno_text(errno));
            return;
        }
        DIR *dir = ::fdopendir(fd);
        if (dir == nullptr) {
            unreadable(path, "cannot list the directory: " + errno_text(errno));
            ::close(fd);
            return;
        }
        std::unique_ptr<DIR, int (*)(DIR *)> dir_owner(dir, ::closedir);
        if (emit_entry && !name.empty()) {
            struct stat st {};
            if (::fstat(fd, &st) != 0) {
                unreadable(path, errno_text(errno));
                return;
            }
            header(name, path, st, TarType::directory, 0, {});
        }
        // d_type spares a stat per entry; DT_UNKNOWN (some file systems) falls back to one.
        std::vector<std::pair<std::string, unsigned char>> children;
        errno = 0;
        while (const dirent *child = ::readdir(dir)) {
            std::string_view child_name(child->d_name);
            if (child_name != "." && child_name != "..") children.emplace_back(child_name, child->d_type);
        }
        if (errno != 0) {
            unreadable(path, "cannot list the directory: " + errno_text(errno));
            return;
        }
        std::sort(children.begin(), children.end());
        const std::string prefix = path == "/" ? path : path + "/";
        const std::string name_prefix = name.empty() ? name : name + "/";
        for (const auto &[child, type] : children) {
            const std::string child_path = prefix + child;
            const std::string child_name = name_prefix + child;
            if (!common::is_valid_utf8(child)) {
                // As the watchers and the initial sync's walk do (core/utf8.hpp).
                log_(common::LogLevel::warn,
                     "skipping " + common::printable_path(child_path) + ": its name is not valid UTF-8");
                continue;
            }
            if (type == DT_DIR) {
                if (!filter.matches_entire_dir(child_path)) {
                    add_directory(fd, child, child_path, child_name, filter, !filter.matches(child_path));
                }
                continue;
            }
            if (type == DT_REG) {
                if (!filter.matches(child_path)) add_file(fd, child, child_path, child_name, filter);
                continue;
            }
            struct stat child_st {};
            if (::fstatat(fd, child.c_str(), &child_st, AT_SYMLINK_NOFOLLOW) != 0) {
                if (errno == ENOENT) {
                    log_(common::LogLevel::warn, "skipping " + child_path + ": it no longer exists");
                    continue;
                }
                unreadable(child_path, errno_text(errno));
                continue;
            }
            if (S_ISDIR(child_st.st_mode)) {
                if (!filter.matches_entire_dir(child_path)) {
                    add_directory(fd, child, child_path, child_name, filter, !filter.matches(child_path));
                }
            } else if (!filter.matches(child_path)) {
                add_path(fd, child, child_path, child_name, child_st, filter);
            }
        }
    }

    // A path replaced by another kind since it was listed (a folder flipped
    // into a symlink) goes in as what it is now; the flip's own event brings
    // a later update anyway. A path that changes kind again is left out then.
    void add_changed_kind(int dir_fd, const std::string &leaf, const std::string &path, const std::string &name,
                          const common::IgnoreSet &filter) {
        struct stat st {};
        const int got =
            dir_fd < 0 ? ::lstat(path.c_str(), &st) : ::fstatat(dir_fd, leaf.c_str(), &st, AT_SYMLINK_NOFOLLOW);
        if (got != 0 || changing_kind_) {
            log_(common::LogLevel::warn, "skipping " + path + ": it changed while it was archived");
            return;
        }
        changing_kind_ = true;
        add_path(dir_fd, leaf, path, name, st, filter);
        changing_kind_ = false;
    }

    // A path that cannot be read is left out and the archive goes on: every
    // readable file still arrives, and the update is failed afterwards.
    void unreadable(const std::string &path, const std::string &why) {
        log_(common::LogLevel::error, "cannot copy " + path + ": " + why);
        summary_.unreadable.push_back(path + " (" + why + ")");
    }

    ArchiveSink &sink_;
    const LogSinkFn &log_;
    const EntryHooks &hooks_;
    std::string header_;  // the entry's header blocks; kept to reuse its memory
    bool changing_kind_ = false;
    bool recording_ = false;                               // walking a mapping that covers others
    std::unordered_map<std::string, std::string> walked_;  // entry name -> local path, while recording
    ArchiveSummary summary_;
};

}  // namespace

ArchiveSummary write_archive_to(const std::vector<updater::CopyMapping> &copies, const common::IgnoreSet &filter,
                                ArchiveSink &sink, const LogSinkFn &log, const EntryHooks &hooks) {
    TarWriter tar(sink, log, hooks);
    std::vector<std::string> locals;
    locals.reserve(copies.size());
    for (const updater::CopyMapping &copy : copies) locals.push_back(copy.local_path);
    std::sort(locals.begin(), locals.end());
    for (const updater::CopyMapping &copy : copies) {
        const std::string beneath = copy.local_path + "/";
        const auto next = std::lower_bound(locals.begin(), locals.end(), beneath);
        tar.add_mapping(copy, filter, next != locals.end() && next->starts_with(beneath));
    }
    return tar.close();
}

}  // namespace liveupdate::host
