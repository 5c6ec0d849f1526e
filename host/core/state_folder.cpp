#include "host/core/state_folder.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <optional>

#include "host/core/host_error.hpp"

namespace liveupdate::host {
namespace fs = std::filesystem;

namespace {

constexpr const char *kWhat = "cannot use the state folder";
constexpr const char *kLockFile = "lock";

// Why a place cannot be used: the errno behind it (0 for none) and a sentence.
struct Unusable {
    int error = 0;
    std::string why;
};

std::string absolute_env(const char *name) {
    const char *value = std::getenv(name);
    return value != nullptr && *value == '/' ? value : "";
}

// A default place given up for the next only when this user may not write
// there (a missing or read-only home); a file in the way, a full disk or
// another daemon are for the user to know.
bool gives_way(int error) { return error == EACCES || error == EPERM || error == EROFS || error == ENOENT; }

Unusable system_error(const std::string &what) {
    const int error = errno;
    return {error, what + ": " + std::strerror(error)};
}

// Creates folder and each missing parent (0700: the journals name the
// developer's files).
std::optional<Unusable> make_folders(const fs::path &folder) {
    fs::path at;
    for (const auto &part : folder.lexically_normal()) {
        if (part.empty()) continue;  // after a trailing slash
        at /= part;
        if (part == at.root_path()) continue;
        if (::mkdir(at.c_str(), 0700) != 0 && errno != EEXIST) return system_error("cannot create " + at.string());
    }
    return std::nullopt;
}

// The private folder under the temporary directory is shared with every
// user: it is ours only if we own it, nobody else can write in it, and it
// is no symlink (which could lead anywhere).
std::optional<Unusable> check_private(const std::string &folder) {
    if (::mkdir(folder.c_str(), 0700) != 0 && errno != EEXIST) return system_error("cannot create " + folder);
    struct stat st {};
    if (::lstat(folder.c_str(), &st) != 0) return system_error("cannot inspect " + folder);
    if (S_ISLNK(st.st_mode)) return Unusable{0, folder + " is a symlink; refusing to follow it"};
    if (!S_ISDIR(st.st_mode)) return Unusable{0, folder + " is not a folder"};
    if (st.st_uid != ::geteuid())
        return Unusable{0, folder + " is owned by uid " + std::to_string(st.st_uid) + ", not by this user (uid " +
                               std::to_string(::geteuid()) + ")"};
    if ((st.st_mode & (S_IWGRP | S_IWOTH)) != 0) {
        char mode[8];
        std::snprintf(mode, sizeof mode, "%04o", static_cast<unsigned>(st.st_mode & 07777));
        return Unusable{0, folder + " can be written by other users (mode " + mode + ")"};
    }
    return std::nullopt;
}

// The pid the lock file names, or "" when it names none.
std::string holder_of(int fd) {
    char text[32] = {};
    const ssize_t n = ::pread(fd, text, sizeof text - 1, 0);
    if (n <= 0) return "";
    const std::string pid(text, static_cast<std::size_t>(n));
    const std::size_t end = pid.find_first_not_of("0123456789");
    return end == 0 ? "" : pid.substr(0, end);
}

// Takes folder's lock; the open lock file, or why not. Throws HostError
// when another daemon holds it: no fallback then.
int lock(const std::string &folder, Unusable &problem) {
    const std::string file = (fs::path(folder) / kLockFile).string();
    const int fd = ::open(file.c_str(), O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
    if (fd < 0) {
        problem = system_error("cannot create " + file);
        return -1;
    }
    if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
        const int error = errno;
        const std::string holder = error == EWOULDBLOCK ? holder_of(fd) : "";
        ::close(fd);
        if (error != EWOULDBLOCK) {
            errno = error;
            problem = system_error("cannot lock " + file);
            return -1;
        }
        throw HostError(kWhat, folder,
                        "another lu-host up" + (holder.empty() ? "" : " (pid " + holder + ")") +
                            " keeps its synced journals there; two daemons on one state folder lose each other's "
                            "journals");
    }
    // Our pid, for a second daemon's message; written now so that a full disk shows at start.
    const std::string pid = std::to_string(::getpid()) + "\n";
    if (::ftruncate(fd, 0) != 0 || ::pwrite(fd, pid.data(), pid.size(), 0) != static_cast<ssize_t>(pid.size()) ||
        ::fdatasync(fd) != 0) {
        problem = system_error("cannot write " + file);
        ::close(fd);
        return -1;
    }
    return fd;
}

// The place made, checked and locked: the lock file, or -1 with why not.
int open_place(const std::string &folder, bool private_temp, Unusable &problem) {
    if (private_temp) {
        if (auto p = check_private(fs::path(folder).parent_path().string())) {
            problem = *p;
            return -1;
        }
    }
    if (auto p = make_folders(folder)) {
        problem = *p;
        return -1;
    }
    struct stat st {};
    if (::stat(folder.c_str(), &st) != 0) {
        problem = system_error("cannot inspect " + folder);
        return -1;
    }
    if (!S_ISDIR(st.st_mode)) {
        problem = {ENOTDIR, folder + " is not a folder"};
        return -1;
    }
    if (::access(folder.c_str(), W_OK | X_OK) != 0) {
        problem = system_error("cannot write in " + folder);
        return -1;
    }
    // Full: told now rather than by the first update (root may use the blocks reserved for it).
    struct statvfs space {};
    if (::statvfs(folder.c_str(), &space) == 0) {
        const bool no_blocks = space.f_bavail == 0 && (::geteuid() != 0 || space.f_bfree == 0);
        if (no_blocks || (space.f_files != 0 && space.f_favail == 0)) {
            problem = {ENOSPC, folder + " is full: its filesystem has no " + (no_blocks ? "space" : "inode") + " left"};
            return -1;
        }
    }
    return lock(folder, problem);
}

}  // namespace

StateFolderPlaces StateFolderPlaces::from_environment(const std::string &state_dir_option) {
    StateFolderPlaces places;
    places.chosen = state_dir_option;
    if (places.chosen.empty())
        if (const char *dir = std::getenv("LIVEUPDATE_STATE_DIR"); dir != nullptr) places.chosen = dir;
    places.xdg_state_home = absolute_env("XDG_STATE_HOME");
    places.home = absolute_env("HOME");
    places.xdg_runtime_dir = absolute_env("XDG_RUNTIME_DIR");
    places.temp_dir = absolute_env("TMPDIR");
    if (places.temp_dir.empty()) places.temp_dir = "/tmp";
    return places;
}

std::string StateFolderPlaces::private_temp_folder() const {
    return (fs::path(temp_dir) / ("liveupdate-" + std::to_string(::geteuid()))).string();
}

std::vector<std::string> StateFolderPlaces::candidates() const {
    if (!chosen.empty()) return {chosen};
    std::vector<std::string> out;
    if (!xdg_state_home.empty()) out.push_back(xdg_state_home + "/liveupdate/synced");
    if (!home.empty()) out.push_back(home + "/.local/state/liveupdate/synced");
    if (!xdg_runtime_dir.empty()) out.push_back(xdg_runtime_dir + "/liveupdate/synced");
    out.push_back(private_temp_folder() + "/synced");
    return out;
}

StateFolder::StateFolder(const StateFolderPlaces &places) {
    const std::vector<std::string> candidates = places.candidates();
    const std::string lasting_home = places.home.empty() ? "" : places.home + "/.local/state/liveupdate/synced";
    std::string given_up;  // "; "-joined: each place passed over, and why
    for (std::size_t i = 0; i < candidates.size(); ++i) {
        const std::string &folder = candidates[i];
        const bool private_temp = places.chosen.empty() && i + 1 == candidates.size();
        Unusable problem;
        lock_fd_ = open_place(folder, private_temp, problem);
        if (lock_fd_ >= 0) {
            path_ = folder;
            break;
        }
        if (!places.chosen.empty() || !gives_way(problem.error) || i + 1 == candidates.size())
            throw HostError(kWhat, folder, problem.why + (given_up.empty() ? "" : " (after " + given_up + ")"));
        given_up += (given_up.empty() ? "" : "; ") + problem.why;
    }
    if (!places.chosen.empty()) return;
    const bool lasting = path_ == lasting_home || (!places.xdg_state_home.empty() && path_ == candidates.front());
    if (lasting && given_up.empty()) return;
    // Said in one line: journals in a runtime or temporary folder may not outlive a reboot.
    fallback_note_ = "up: the synced journals are kept in " + path_ +
                     (lasting ? "" : ", which may not outlive a reboot") + " (" +
                     (given_up.empty() ? std::string("neither $XDG_STATE_HOME nor $HOME is set") : given_up) + ")";
}

StateFolder::~StateFolder() {
    if (lock_fd_ >= 0) ::close(lock_fd_);
}

}  // namespace liveupdate::host
