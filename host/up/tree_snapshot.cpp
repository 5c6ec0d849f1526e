#include "host/up/tree_snapshot.hpp"

#include <dirent.h>
#include <sys/stat.h>

namespace liveupdate::host::up {

bool stamp_of(const std::string &path, FileStamp &out) {
    struct stat st {};
    if (::lstat(path.c_str(), &st) != 0) return false;
    out.size = S_ISDIR(st.st_mode) ? 0 : static_cast<std::uint64_t>(st.st_size);
    out.mtime_ns = S_ISDIR(st.st_mode) ? 0 : st.st_mtim.tv_sec * 1000000000LL + st.st_mtim.tv_nsec;
    out.mode = st.st_mode & S_IFMT;
    return true;
}

void scan_tree(const std::string &root, const SkipDir &skip_dir, const SkipPath &skip, TreeSnapshot &out) {
    FileStamp stamp;
    if (!stamp_of(root, stamp)) return;
    if (!skip(root)) out[root] = stamp;
    if (stamp.mode != S_IFDIR || skip_dir(root)) return;
    DIR *dir = ::opendir(root.c_str());
    if (dir == nullptr) return;
    std::vector<std::string> children;
    while (const dirent *e = ::readdir(dir)) {
        const std::string name = e->d_name;
        if (name == "." || name == "..") continue;
        std::string child = root == "/" ? std::string() : root;
        child += '/';
        child += name;
        children.push_back(std::move(child));
    }
    ::closedir(dir);
    for (const auto &child : children) scan_tree(child, skip_dir, skip, out);
}

std::vector<std::string> diff_snapshots(const TreeSnapshot &before, const TreeSnapshot &after) {
    std::vector<std::string> changed;
    auto b = before.begin();
    auto a = after.begin();
    while (b != before.end() || a != after.end()) {
        if (a == after.end() || (b != before.end() && b->first < a->first)) {
            changed.push_back(b->first);
            ++b;
        } else if (b == before.end() || a->first < b->first) {
            changed.push_back(a->first);
            ++a;
        } else {
            // A directory's own mtime changes with every entry: its entries tell the story.
            if (a->second.mode != b->second.mode || (!(a->second == b->second) && a->second.mode != S_IFDIR))
                changed.push_back(a->first);
            ++a;
            ++b;
        }
    }
    return changed;
}

}  // namespace liveupdate::host::up
