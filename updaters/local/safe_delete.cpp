#include "updaters/local/safe_delete.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <vector>

#include "common/agent_protocol/messages.hpp"
#include "common/unique_fd.hpp"
#include "updaters/local/container_paths.hpp"

namespace liveupdate::local {
namespace {

using common::UniqueFd;

std::string errno_text(int err) { return std::strerror(err); }

constexpr int kDirFlags = O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC;

// Removes name (inside parent) and everything beneath it, opening each
// directory relative to its parent with O_NOFOLLOW.
std::string remove_tree_at(int parent, const std::string &name, const std::string &shown) {
    struct stat st {};
    if (::fstatat(parent, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0)
        return errno == ENOENT ? "" : "cannot stat " + shown + ": " + errno_text(errno);
    if (!S_ISDIR(st.st_mode)) {
        if (::unlinkat(parent, name.c_str(), 0) != 0 && errno != ENOENT)
            return "cannot delete " + shown + ": " + errno_text(errno);
        return "";
    }
    UniqueFd dir(::openat(parent, name.c_str(), kDirFlags));
    if (dir.get() < 0) return "cannot open " + shown + ": " + errno_text(errno);
    DIR *stream = ::fdopendir(dir.get());
    if (stream == nullptr) return "cannot list " + shown + ": " + errno_text(errno);
    dir.release();
    std::vector<std::string> children;
    while (const dirent *e = ::readdir(stream)) {
        const std::string child = e->d_name;
        if (child != "." && child != "..") children.push_back(child);
    }
    std::string error;
    for (const auto &child : children) {
        std::string child_shown = shown;
        child_shown.append("/").append(child);
        error = remove_tree_at(::dirfd(stream), child, child_shown);
        if (!error.empty()) break;
    }
    ::closedir(stream);
    if (!error.empty()) return error;
    if (::unlinkat(parent, name.c_str(), AT_REMOVEDIR) != 0 && errno != ENOENT)
        return "cannot delete " + shown + ": " + errno_text(errno);
    return "";
}

}  // namespace

std::string delete_under_root(const std::string &root, const std::string &container_path,
                              const std::vector<std::string> &sync_roots) {
    const RelativePath rel = container_path_relative(container_path);
    if (!rel.refusal.empty()) return "refusing to delete \"" + container_path + "\": " + rel.refusal;
    if (rel.path.empty()) return "refusing to delete the container root";

    std::vector<std::string> segments;
    for (std::size_t start = 0; start <= rel.path.size();) {
        std::size_t end = rel.path.find('/', start);
        if (end == std::string::npos) end = rel.path.size();
        segments.push_back(rel.path.substr(start, end - start));
        start = end + 1;
    }
    UniqueFd dir(::open(root.c_str(), kDirFlags));
    if (dir.get() < 0) return "cannot open container root " + root + ": " + errno_text(errno);
    const std::string sync_root = agent_protocol::root_for("/" + rel.path, sync_roots);
    std::string walked;
    for (std::size_t i = 0; i + 1 < segments.size(); ++i) {
        walked += "/" + segments[i];
        UniqueFd next(::openat(dir.get(), segments[i].c_str(), kDirFlags));
        if (next.get() < 0) {
            const int err = errno;
            struct stat st {};
            if (::fstatat(dir.get(), segments[i].c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(st.st_mode)) {
                if (walked.size() > sync_root.size()) return "";  // below the sync root: not followed
                return "refusing to delete \"" + container_path + "\": it goes through a symlink";
            }
            if (err == ENOENT || err == ENOTDIR) return "";  // nothing there to delete
            return "cannot open " + under_root(root, segments[i]) + ": " + errno_text(err);
        }
        dir.reset(next.release());
    }
    return remove_tree_at(dir.get(), segments.back(), under_root(root, rel.path));
}

}  // namespace liveupdate::local
