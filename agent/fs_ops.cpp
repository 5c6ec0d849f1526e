#include "agent/fs_ops.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>

namespace liveupdate::agent {
namespace {

agent_protocol::Result failure(int error, const std::string &what, const std::string &path) {
    return {error, what + " " + path + ": " + std::strerror(error)};
}

std::string parent_of(const std::string &path) {
    const auto slash = path.find_last_of('/');
    return slash == 0 ? "/" : path.substr(0, slash);
}

// mkdir -p: existing folders, and symlinks to folders, are kept.
int make_parents(const std::string &dir, mode_t mode) {
    struct stat st {};
    if (::stat(dir.c_str(), &st) == 0) return S_ISDIR(st.st_mode) ? 0 : ENOTDIR;
    if (errno != ENOENT) return errno;
    if (const int error = make_parents(parent_of(dir), 0755); error != 0) return error;
    if (::mkdir(dir.c_str(), mode) != 0 && errno != EEXIST) return errno;
    return 0;
}

int set_owner(int fd_or_minus1, const std::string &path, std::int64_t uid, std::int64_t gid) {
    if (uid == agent_protocol::kKeepOwner && gid == agent_protocol::kKeepOwner) return 0;
    const auto u = static_cast<uid_t>(uid == agent_protocol::kKeepOwner ? -1 : uid);
    const auto g = static_cast<gid_t>(gid == agent_protocol::kKeepOwner ? -1 : gid);
    const int rc = fd_or_minus1 >= 0 ? ::fchown(fd_or_minus1, u, g) : ::lchown(path.c_str(), u, g);
    return rc == 0 ? 0 : errno;
}

// A name beside `path` for its replacement, unique within this agent.
std::string temporary_beside(const std::string &path) {
    static unsigned long counter = 0;
    return parent_of(path) + (parent_of(path) == "/" ? "" : "/") + ".lu-agent-" + std::to_string(::getpid()) + "-" +
           std::to_string(++counter);
}

int write_all(int fd, const std::string &content) {
    std::size_t done = 0;
    while (done < content.size()) {
        const auto wrote = ::write(fd, content.data() + done, content.size() - done);
        if (wrote < 0) {
            if (errno == EINTR) continue;
            return errno;
        }
        done += static_cast<std::size_t>(wrote);
    }
    return 0;
}

// Removes what is inside the folder open as `dir`, then the folder's fd is closed.
int remove_inside(int dir) {
    DIR *stream = ::fdopendir(dir);
    if (stream == nullptr) {
        const int error = errno;
        ::close(dir);
        return error;
    }
    int error = 0;
    while (const dirent *entry = ::readdir(stream)) {
        const std::string name = entry->d_name;
        if (name == "." || name == "..") continue;
        struct stat st {};
        if (::fstatat(dir, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) {
            if (errno != ENOENT) error = errno;
            continue;
        }
        if (S_ISDIR(st.st_mode)) {
            const int child = ::openat(dir, name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
            if (child < 0) {
                error = errno;
                continue;
            }
            if (const int e = remove_inside(child); e != 0) error = e;
            if (::unlinkat(dir, name.c_str(), AT_REMOVEDIR) != 0 && errno != ENOENT) error = errno;
        } else if (::unlinkat(dir, name.c_str(), 0) != 0 && errno != ENOENT) {
            error = errno;
        }
    }
    ::closedir(stream);
    return error;
}

}  // namespace

agent_protocol::Result write_file(const agent_protocol::WriteFile &request) {
    const std::string &path = request.path;
    if (const int error = make_parents(parent_of(path), 0755); error != 0)
        return failure(error, "creating the folder of", path);
    const std::string temporary = temporary_beside(path);
    const int fd = ::open(temporary.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd < 0) return failure(errno, "creating a temporary file for", path);
    int error = write_all(fd, request.content);
    if (error == 0 && ::fchmod(fd, request.mode & 07777) != 0) error = errno;
    if (error == 0) error = set_owner(fd, temporary, request.uid, request.gid);
    // The owner change may clear set-id bits: the mode goes on again.
    if (error == 0 && (request.mode & 06000) != 0 && ::fchmod(fd, request.mode & 07777) != 0) error = errno;
    if (::close(fd) != 0 && error == 0) error = errno;
    if (error == 0 && ::rename(temporary.c_str(), path.c_str()) != 0) error = errno;
    if (error != 0) {
        ::unlink(temporary.c_str());
        return failure(error, "writing", path);
    }
    return {};
}

agent_protocol::Result make_dir(const agent_protocol::MakeDir &request) {
    const std::string &path = request.path;
    struct stat st {};
    if (::stat(path.c_str(), &st) == 0) {
        if (!S_ISDIR(st.st_mode)) return failure(ENOTDIR, "creating the folder", path);
        return {};
    }
    if (const int error = make_parents(parent_of(path), 0755); error != 0)
        return failure(error, "creating the folder of", path);
    if (::mkdir(path.c_str(), request.mode & 07777) != 0 && errno != EEXIST)
        return failure(errno, "creating the folder", path);
    // mkdir applies the umask; the request's mode is what tar would leave.
    if (::chmod(path.c_str(), request.mode & 07777) != 0) return failure(errno, "setting the mode of", path);
    if (const int error = set_owner(-1, path, request.uid, request.gid); error != 0)
        return failure(error, "setting the owner of", path);
    return {};
}

agent_protocol::Result make_symlink(const agent_protocol::Symlink &request) {
    const std::string &path = request.path;
    if (const int error = make_parents(parent_of(path), 0755); error != 0)
        return failure(error, "creating the folder of", path);
    const std::string temporary = temporary_beside(path);
    if (::symlink(request.target.c_str(), temporary.c_str()) != 0) return failure(errno, "creating the symlink", path);
    int error = set_owner(-1, temporary, request.uid, request.gid);
    if (error == 0 && ::rename(temporary.c_str(), path.c_str()) != 0) error = errno;
    if (error != 0) {
        ::unlink(temporary.c_str());
        return failure(error, "creating the symlink", path);
    }
    return {};
}

agent_protocol::Result remove_path(const agent_protocol::Remove &request) {
    const std::string &path = request.path;
    if (path == "/") return failure(EPERM, "deleting", path);
    struct stat st {};
    if (::lstat(path.c_str(), &st) != 0)
        return errno == ENOENT ? agent_protocol::Result{} : failure(errno, "deleting", path);
    if (S_ISDIR(st.st_mode)) {
        const int dir = ::open(path.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (dir < 0) return failure(errno, "opening the folder", path);
        if (const int error = remove_inside(dir); error != 0) return failure(error, "deleting inside", path);
        if (::rmdir(path.c_str()) != 0 && errno != ENOENT) return failure(errno, "deleting", path);
        return {};
    }
    if (::unlink(path.c_str()) != 0 && errno != ENOENT) return failure(errno, "deleting", path);
    return {};
}

}  // namespace liveupdate::agent
