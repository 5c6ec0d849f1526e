#include "common/left_files.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "common/open_beneath.hpp"
#include "common/unique_fd.hpp"
#include "common/utf8.hpp"

namespace liveupdate::common {
namespace {

// Deeper folders are not looked into: a bound on the walk's stack.
constexpr int kMostDepth = 128;

std::string shown(const std::string &folder, std::string_view name) {
    return printable_path(folder + "/" + std::string(name));
}

// dir (opened beneath the root, as `folder`): its files left behind
// removed, and its folders looked into.
void clean_folder(UniqueFd dir, const std::string &folder, int depth, const LeftFileRule &rule, LeftFiles &out) {
    const int listing = ::dup(dir.get());
    DIR *entries = listing < 0 ? nullptr : ::fdopendir(listing);
    if (entries == nullptr) {
        if (listing >= 0) ::close(listing);
        out.errors.push_back(printable_path(folder) + ": cannot list: " + std::strerror(errno));
        return;
    }
    std::vector<std::string> folders;
    while (const dirent *entry = ::readdir(entries)) {
        const std::string_view name = entry->d_name;
        if (name == "." || name == "..") continue;
        if (entry->d_type == DT_DIR || entry->d_type == DT_UNKNOWN) folders.emplace_back(name);
        if (!rule.named(name)) continue;
        struct stat st {};
        if (::fstatat(dir.get(), entry->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0) continue;
        if (!S_ISREG(st.st_mode) || st.st_nlink != 1 || st.st_uid != ::geteuid()) continue;
        if (!rule.left(name, st)) continue;
        if (::unlinkat(dir.get(), entry->d_name, 0) == 0)
            out.removed.push_back(shown(folder, name));
        else if (errno != ENOENT)
            out.errors.push_back(shown(folder, name) + ": cannot remove: " + std::strerror(errno));
    }
    ::closedir(entries);
    if (depth >= kMostDepth) return;
    for (const std::string &name : folders) {
        // A symlink, or anything but a folder, is refused here: not followed.
        OpenedFd inner = open_beneath(dir.get(), name, O_RDONLY | O_DIRECTORY);
        if (!inner.ok()) continue;
        std::string inner_folder = folder;
        inner_folder.append("/").append(name);
        clean_folder(std::move(inner.fd), inner_folder, depth + 1, rule, out);
    }
}

}  // namespace

LeftFiles remove_left_files(const std::string &folder, const std::string &beneath, const LeftFileRule &rule) {
    LeftFiles out;
    UniqueFd top(::open(folder.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
    if (top.get() < 0) {
        if (errno != ENOENT) out.errors.push_back(printable_path(folder) + ": cannot open: " + std::strerror(errno));
        return out;
    }
    if (beneath.empty()) {
        clean_folder(std::move(top), folder, 0, rule, out);
        return out;
    }
    const std::string shown_start = folder + "/" + beneath;
    OpenedFd start = open_beneath(top.get(), beneath, O_RDONLY | O_DIRECTORY);
    if (!start.ok()) {
        // Missing, not a folder, or reached through a symlink: nothing of ours beneath it to look at.
        const int e = start.error;
        if (e != ENOENT && e != ENOTDIR && e != ELOOP && e != EXDEV)
            out.errors.push_back(printable_path(shown_start) + ": cannot open: " + std::strerror(e));
        return out;
    }
    clean_folder(std::move(start.fd), shown_start, 0, rule, out);
    return out;
}

}  // namespace liveupdate::common
