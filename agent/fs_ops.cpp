#include "agent/fs_ops.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>

#include "agent/content_guard.hpp"
#include "agent/fs_place.hpp"
#include "agent/fs_replace.hpp"

namespace liveupdate::agent {
namespace {

int set_link_owner(int dir, const std::string &name, std::int64_t uid, std::int64_t gid) {
    if (uid == agent_protocol::kKeepOwner && gid == agent_protocol::kKeepOwner) return 0;
    const auto u = static_cast<uid_t>(uid == agent_protocol::kKeepOwner ? -1 : uid);
    const auto g = static_cast<gid_t>(gid == agent_protocol::kKeepOwner ? -1 : gid);
    return ::fchownat(dir, name.c_str(), u, g, AT_SYMLINK_NOFOLLOW) == 0 ? 0 : errno;
}

// An existing folder is kept as it is; at the root, so is a symlink to one.
bool is_folder_to_keep(const Place &place) {
    struct stat st {};
    const int flags = place.leaf_is_root ? 0 : AT_SYMLINK_NOFOLLOW;
    return ::fstatat(place.parent.get(), place.leaf.c_str(), &st, flags) == 0 && S_ISDIR(st.st_mode);
}

}  // namespace

agent_protocol::Result make_dir(const agent_protocol::MakeDir &request) {
    const std::string &path = request.path;
    const auto resolved = open_place(request.root, path, true);
    if (!resolved.place) return failure(resolved, path);
    const Place &place = *resolved.place;
    const int dir = place.parent.get();
    const char *leaf = place.leaf.c_str();
    if (is_folder_to_keep(place)) return {};
    // A file, or a symlink below the root, gives way to the folder (tar's default).
    if (::unlinkat(dir, leaf, 0) != 0 && errno != ENOENT) return failure(errno, "replacing by a folder", path);
    if (::mkdirat(dir, leaf, 0700) != 0) return failure(errno, "creating the folder", path);
    UniqueFd made(::openat(dir, leaf, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
    if (made.get() < 0) return failure(errno, "opening the folder", path);
    // mkdir applies the umask; the request's mode is what tar would leave.
    if (::fchmod(made.get(), request.mode & 07777) != 0) return failure(errno, "setting the mode of", path);
    if (const int error = set_owner(made.get(), request.uid, request.gid); error != 0)
        return failure(error, "setting the owner of", path);
    return {};
}

agent_protocol::Result make_symlink(const agent_protocol::Symlink &request) {
    const std::string &path = request.path;
    const auto resolved = open_place(request.root, path, true);
    if (!resolved.place) return failure(resolved, path);
    const Place &place = *resolved.place;
    const std::string temporary = temporary_name();
    if (::symlinkat(request.target.c_str(), place.parent.get(), temporary.c_str()) != 0)
        return failure(errno, "creating the symlink", path);
    int error = set_link_owner(place.parent.get(), temporary, request.uid, request.gid);
    if (error != 0) ::unlinkat(place.parent.get(), temporary.c_str(), 0);
    if (error == 0) error = replace_with(place, temporary);
    if (error != 0) return failure(error, "creating the symlink", path);
    return {};
}

agent_protocol::Result remove_path(const agent_protocol::Remove &request,
                                   const agent_protocol::ExpectContent *expected) {
    const std::string &path = request.path;
    if (path_names(path).empty()) return failure(EPERM, "deleting", path);
    const auto resolved = open_place(request.root, path, false);
    // Beneath a file or a symlink (below the root) the path cannot exist: it is gone already.
    if (!resolved.place) return resolved.error == 0 ? agent_protocol::Result{} : failure(resolved, path);
    const Place &place = *resolved.place;
    struct stat st {};
    if (::fstatat(place.parent.get(), place.leaf.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0)
        return errno == ENOENT ? agent_protocol::Result{} : failure(errno, "deleting", path);
    if (expected != nullptr)
        if (const std::string found = unexpected_content(place, *expected); !found.empty())
            return not_as_expected(found);
    const int error = S_ISDIR(st.st_mode) ? remove_tree_at(place.parent.get(), place.leaf)
                      : ::unlinkat(place.parent.get(), place.leaf.c_str(), 0) == 0 || errno == ENOENT ? 0
                                                                                                      : errno;
    if (error != 0) return failure(error, "deleting", path);
    return {};
}

}  // namespace liveupdate::agent
