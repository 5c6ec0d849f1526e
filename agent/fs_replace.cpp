#include "agent/fs_replace.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <vector>

#include "common/agent_protocol/messages.hpp"
#include "common/agent_protocol/temporary_names.hpp"

namespace liveupdate::agent {
namespace {

// Drawn once per agent; without randomness, time and pid still make a token
// that differs between agents.
std::uint64_t agent_token() {
    std::uint64_t token = 0;
    if (::getrandom(&token, sizeof token, GRND_NONBLOCK) != static_cast<ssize_t>(sizeof token))
        token = static_cast<std::uint64_t>(std::chrono::steady_clock::now().time_since_epoch().count()) *
                    0x9e3779b97f4a7c15u ^
                static_cast<std::uint64_t>(::getpid());
    return token;
}

// A folder where a file or a link is to go gives way (a rename cannot replace it).
int clear_folder_at(const Place &place) {
    struct stat st {};
    if (::fstatat(place.parent.get(), place.leaf.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0)
        return errno == ENOENT ? 0 : errno;
    return S_ISDIR(st.st_mode) ? remove_tree_at(place.parent.get(), place.leaf) : 0;
}

// kNotAsExpected answers only a guard's refusal: a filesystem's own ESTALE (NFS) is passed on as EIO.
int answered_errno(int error) { return error == agent_protocol::kNotAsExpected ? EIO : error; }

bool is_running(long pid) { return pid != ::getpid() && (::kill(static_cast<pid_t>(pid), 0) == 0 || errno != ESRCH); }

}  // namespace

agent_protocol::Result failure(int error, const std::string &what, const std::string &path) {
    return {answered_errno(error), what + " " + path + ": " + std::strerror(error)};
}

agent_protocol::Result failure(const PlaceResult &resolved, const std::string &path) {
    return {answered_errno(resolved.error),
            "reaching " + path + ": " + resolved.what + ": " + std::strerror(resolved.error)};
}

std::string temporary_name() {
    static const std::uint64_t token = agent_token();
    static unsigned long counter = 0;
    return agent_protocol::temporary_name(::getpid(), ++counter, token);
}

void remove_stale_temporaries(int dir) {
    const int copy = ::fcntl(dir, F_DUPFD_CLOEXEC, 0);
    if (copy < 0) return;
    DIR *stream = ::fdopendir(copy);
    if (stream == nullptr) {
        ::close(copy);
        return;
    }
    ::rewinddir(stream);
    std::vector<std::string> stale;
    while (const dirent *entry = ::readdir(stream)) {
        const long owner = agent_protocol::temporary_owner(entry->d_name);
        if (owner <= 0 || is_running(owner)) continue;
        struct stat st {};
        if (::fstatat(dir, entry->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(st.st_mode))
            stale.emplace_back(entry->d_name);
    }
    ::closedir(stream);
    // Best effort: a leftover that cannot go now goes at a later begin.
    for (const auto &name : stale) ::unlinkat(dir, name.c_str(), 0);
}

int write_all(int fd, std::string_view content) {
    while (!content.empty()) {
        const auto wrote = ::write(fd, content.data(), content.size());
        if (wrote < 0) {
            if (errno == EINTR) continue;
            return errno;
        }
        content.remove_prefix(static_cast<std::size_t>(wrote));
    }
    return 0;
}

int set_owner(int fd, std::int64_t uid, std::int64_t gid) {
    if (uid == agent_protocol::kKeepOwner && gid == agent_protocol::kKeepOwner) return 0;
    const auto u = static_cast<uid_t>(uid == agent_protocol::kKeepOwner ? -1 : uid);
    const auto g = static_cast<gid_t>(gid == agent_protocol::kKeepOwner ? -1 : gid);
    return ::fchown(fd, u, g) == 0 ? 0 : errno;
}

int set_mode_and_owner(int fd, std::uint32_t mode, std::int64_t uid, std::int64_t gid) {
    if (::fchmod(fd, mode & 07777) != 0) return errno;
    if (const int error = set_owner(fd, uid, gid); error != 0) return error;
    if ((mode & 06000) != 0 && ::fchmod(fd, mode & 07777) != 0) return errno;
    return 0;
}

int replace_with(const Place &place, const std::string &temporary) {
    int error = clear_folder_at(place);
    if (error == 0 && ::renameat(place.parent.get(), temporary.c_str(), place.parent.get(), place.leaf.c_str()) != 0)
        error = errno;
    if (error != 0) ::unlinkat(place.parent.get(), temporary.c_str(), 0);
    return error;
}

int replace_large_with(const Place &place, const std::string &temporary) {
    const int dir = place.parent.get();
    struct stat st {};
    const bool over_a_file = ::fstatat(dir, place.leaf.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(st.st_mode);
    if (!over_a_file || ::renameat2(dir, temporary.c_str(), dir, place.leaf.c_str(), RENAME_EXCHANGE) != 0)
        return replace_with(place, temporary);
    // The old file has the temporary name now; left behind, the next begin here removes it.
    ::unlinkat(dir, temporary.c_str(), 0);
    return 0;
}

}  // namespace liveupdate::agent
