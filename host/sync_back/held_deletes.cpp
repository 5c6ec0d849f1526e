#include "host/sync_back/held_deletes.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <memory>
#include <vector>

#include "common/open_beneath.hpp"
#include "common/paths.hpp"
#include "common/unique_fd.hpp"
#include "common/utf8.hpp"
#include "host/sync_back/beneath_files.hpp"

namespace liveupdate::host::sync_back {
namespace {

using common::UniqueFd;

std::string change_held(const std::string &path, bool agreed) {
    return common::printable_path(path) + " holds a change of the container's that sync back brings back" +
           (agreed ? "" : " (never synced forward)");
}

std::string delete_held(const std::string &path, const std::string &why) {
    return why.empty() ? "" : common::printable_path(path) + " is not deleted: " + why;
}

// What a file the container holds at path, open as fd, says about deleting it.
std::string hold_for_file(int fd, const std::string &path, const std::function<bool(const std::string &)> &comes_back,
                          const SyncedJournal &journal) {
    if (!comes_back(path)) return "";
    const std::optional<std::string> agreed = journal.agreed(path);
    std::string error;
    if (agreed && content_digest(fd, error) == *agreed && error.empty()) return "";
    return change_held(path, agreed.has_value());
}

// Walks the folder dir (container path `path`) without following a symlink.
std::string hold_beneath(int dir, const std::string &path, const std::function<bool(const std::string &)> &comes_back,
                         const SyncedJournal &journal) {
    const int listing = ::dup(dir);
    if (listing < 0) return "";
    std::unique_ptr<DIR, int (*)(DIR *)> stream(::fdopendir(listing), ::closedir);
    if (!stream) {
        ::close(listing);
        return "";
    }
    std::vector<std::string> children;
    while (const dirent *e = ::readdir(stream.get())) {
        const std::string child = e->d_name;
        if (child != "." && child != "..") children.push_back(child);
    }
    for (const std::string &child : children) {
        std::string child_path = path;
        child_path.append("/").append(child);
        struct stat st {};
        if (::fstatat(dir, child.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) continue;
        if (S_ISREG(st.st_mode)) {
            UniqueFd file(::openat(dir, child.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC));
            if (file.get() < 0) continue;
            if (std::string why = hold_for_file(file.get(), child_path, comes_back, journal); !why.empty()) return why;
        } else if (S_ISDIR(st.st_mode)) {
            UniqueFd sub(::openat(dir, child.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
            if (sub.get() < 0) continue;
            if (std::string why = hold_beneath(sub.get(), child_path, comes_back, journal); !why.empty()) return why;
        }
    }
    return "";
}

}  // namespace

std::string held_delete(const std::string &container_root, const std::string &delete_path,
                        const std::function<bool(const std::string &)> &comes_back, const SyncedJournal &journal) {
    const std::string path = common::clean_path(delete_path);
    if (!comes_back || path == "/") return "";
    UniqueFd root(::open(container_root.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
    if (root.get() < 0) return "";
    const common::OpenedFd target = common::open_beneath(root.get(), path.substr(1), O_RDONLY | O_NONBLOCK);
    if (!target.ok()) return "";  // gone, or a symlink on the way or at the end: nothing of the app's goes
    struct stat st {};
    if (::fstat(target.fd.get(), &st) != 0) return "";
    std::string why;
    if (S_ISREG(st.st_mode)) why = hold_for_file(target.fd.get(), path, comes_back, journal);
    if (S_ISDIR(st.st_mode)) why = hold_beneath(target.fd.get(), path, comes_back, journal);
    return delete_held(path, why);
}

std::string held_delete_of_reported(const std::string &delete_path, const std::map<std::string, std::string> &reported,
                                    const SyncedJournal &journal) {
    const std::string path = common::clean_path(delete_path);
    if (path == "/") return "";
    const auto held = [&](const std::string &file, const std::string &digest) {
        const std::optional<std::string> agreed = journal.agreed(file);
        return agreed && *agreed == digest ? std::string() : change_held(file, agreed.has_value());
    };
    if (const auto it = reported.find(path); it != reported.end())
        if (std::string why = held(it->first, it->second); !why.empty()) return delete_held(path, why);
    const std::string folder = path + "/";
    for (auto it = reported.lower_bound(folder); it != reported.end() && it->first.starts_with(folder); ++it)
        if (std::string why = held(it->first, it->second); !why.empty()) return delete_held(path, why);
    return "";
}

}  // namespace liveupdate::host::sync_back
