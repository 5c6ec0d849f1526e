#include "agent/fs_place.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>

namespace liveupdate::agent {

namespace {

constexpr int kFollowDir = O_RDONLY | O_DIRECTORY | O_CLOEXEC;
constexpr int kNoFollowDir = kFollowDir | O_NOFOLLOW;

std::string joined(const std::vector<std::string> &names, std::size_t count) {
    std::string path;
    for (std::size_t i = 0; i < count; ++i) path += "/" + names[i];
    return path.empty() ? "/" : path;
}

PlaceResult failed(int error, std::string what) { return {std::nullopt, error, std::move(what)}; }

// mkdir -p above the root: existing folders, and symlinks to folders, are kept.
int make_parents(const std::string &dir) {
    struct stat st {};
    if (::stat(dir.c_str(), &st) == 0) return S_ISDIR(st.st_mode) ? 0 : ENOTDIR;
    if (errno != ENOENT) return errno;
    const auto slash = dir.find_last_of('/');
    if (const int error = make_parents(slash == 0 ? "/" : dir.substr(0, slash)); error != 0) return error;
    if (::mkdir(dir.c_str(), 0755) != 0 && errno != EEXIST) return errno;
    return 0;
}

// Opens the folder where the walk starts, following symlinks. `replace`: it
// is the root, and a file (or a link to no folder) there gives way to a folder.
PlaceResult open_start(const std::string &dir, bool create, bool replace) {
    UniqueFd fd(::open(dir.c_str(), kFollowDir));
    if (fd.get() >= 0) return {Place{std::move(fd), {}}, 0, {}};
    const int error = errno;
    if (!create)
        return error == ENOENT || error == ENOTDIR ? PlaceResult{} : failed(error, "opening the folder " + dir);
    struct stat st {};
    const bool not_a_folder = error == ENOTDIR || error == ENOENT;
    if (replace && not_a_folder && ::lstat(dir.c_str(), &st) == 0 && ::unlink(dir.c_str()) != 0)
        return failed(errno, "replacing by a folder " + dir);
    if (const int e = make_parents(dir); e != 0) return failed(e, "creating the folder " + dir);
    fd = UniqueFd(::open(dir.c_str(), kFollowDir));
    if (fd.get() < 0) return failed(errno, "opening the folder " + dir);
    return {Place{std::move(fd), {}}, 0, {}};
}

// One step down from `dir` into the folder `name`, never through a symlink.
PlaceResult step_down(int dir, const std::string &name, bool create, const std::string &shown) {
    struct stat st {};
    const bool exists = ::fstatat(dir, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0;
    if (!exists && errno != ENOENT) return failed(errno, "looking at " + shown);
    if (!exists || !S_ISDIR(st.st_mode)) {
        if (!create) return {};
        // tar's default for a folder in its archive: what is there gives way.
        if (exists && ::unlinkat(dir, name.c_str(), 0) != 0) return failed(errno, "replacing by a folder " + shown);
        if (::mkdirat(dir, name.c_str(), 0755) != 0 && errno != EEXIST)
            return failed(errno, "creating the folder " + shown);
    }
    UniqueFd next(::openat(dir, name.c_str(), kNoFollowDir));
    if (next.get() < 0) return failed(errno, "opening the folder " + shown);
    return {Place{std::move(next), {}}, 0, {}};
}

bool is_within(const std::vector<std::string> &root, const std::vector<std::string> &path) {
    if (path.size() < root.size()) return false;
    for (std::size_t i = 0; i < root.size(); ++i)
        if (root[i] != path[i]) return false;
    return true;
}

}  // namespace

std::vector<std::string> path_names(const std::string &path) {
    std::vector<std::string> names;
    for (std::size_t start = 0; start <= path.size();) {
        auto end = path.find('/', start);
        if (end == std::string::npos) end = path.size();
        const std::string name = path.substr(start, end - start);
        if (!name.empty() && name != ".") names.push_back(name);
        start = end + 1;
    }
    return names;
}

PlaceResult open_place(const std::string &root, const std::string &path, bool create) {
    const auto root_names = path_names(root);
    const auto names = path_names(path);
    if (names.empty()) return failed(EINVAL, "resolving the container root /");
    if (!is_within(root_names, names)) return failed(EINVAL, "resolving " + path + " outside its root " + root);
    // The root's own folder is followed; so is the root when the path lies below it.
    const bool at_root = names.size() == root_names.size();
    const std::size_t start = at_root ? names.size() - 1 : root_names.size();
    PlaceResult current = open_start(joined(names, start), create, !at_root);
    for (std::size_t i = start; current.place && i + 1 < names.size(); ++i)
        current = step_down(current.place->parent.get(), names[i], create, joined(names, i + 1));
    if (!current.place) return current;
    current.place->leaf = names.back();
    current.place->leaf_is_root = at_root;
    return current;
}

int remove_tree_at(int parent, const std::string &name) {
    UniqueFd dir(::openat(parent, name.c_str(), kNoFollowDir));
    if (dir.get() < 0) return errno == ENOENT ? 0 : errno;
    DIR *stream = ::fdopendir(dir.get());
    if (stream == nullptr) return errno;
    dir.release();
    int error = 0;
    while (const dirent *entry = ::readdir(stream)) {
        const std::string child = entry->d_name;
        if (child == "." || child == "..") continue;
        struct stat st {};
        if (::fstatat(::dirfd(stream), child.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) {
            if (errno != ENOENT) error = errno;
            continue;
        }
        const int e = S_ISDIR(st.st_mode) ? remove_tree_at(::dirfd(stream), child)
                      : ::unlinkat(::dirfd(stream), child.c_str(), 0) == 0 || errno == ENOENT ? 0
                                                                                              : errno;
        if (e != 0) error = e;
    }
    ::closedir(stream);
    if (error != 0) return error;
    if (::unlinkat(parent, name.c_str(), AT_REMOVEDIR) != 0 && errno != ENOENT) return errno;
    return 0;
}

}  // namespace liveupdate::agent
