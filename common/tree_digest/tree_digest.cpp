#include "common/tree_digest/tree_digest.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <stdexcept>

#define XXH_INLINE_ALL
#include <xxhash.h>

namespace liveupdate::tree_digest {
namespace {

// The hash of a file's content; errno's value in error when it cannot be read.
std::uint64_t hash_file(const std::string &path, int &error) {
    const int fd = ::open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) {
        error = errno;
        return 0;
    }
    XXH3_state_t state;
    XXH3_64bits_reset(&state);
    std::vector<char> buffer(std::size_t{256} * 1024);
    for (;;) {
        const auto got = ::read(fd, buffer.data(), buffer.size());
        if (got == 0) break;
        if (got < 0) {
            if (errno == EINTR) continue;
            error = errno;
            break;
        }
        XXH3_64bits_update(&state, buffer.data(), static_cast<std::size_t>(got));
    }
    ::close(fd);
    return XXH3_64bits_digest(&state);
}

class Walker {
public:
    Walker(std::string root, const PruneFn &prune, const EachFn &each)
        : root_(std::move(root)), prune_(prune), each_(each) {}

    WalkResult run() {
        struct stat st {};
        if (::lstat(root_.c_str(), &st) != 0) {
            if (errno == ENOENT || errno == ENOTDIR) return {false, false, {}, 0};
            note(errno, root_);
            return result_;
        }
        visit(root_, "", st);
        return result_;
    }

private:
    // False once the walk is to stop.
    bool visit(const std::string &path, const std::string &relative, const struct stat &st) {
        Entry entry{relative, EntryKind::other, static_cast<std::uint32_t>(st.st_mode & 07777), 0, 0};
        if (S_ISREG(st.st_mode)) {
            entry.kind = EntryKind::file;
            entry.size = static_cast<std::uint64_t>(st.st_size);
            int error = 0;
            entry.hash = hash_file(path, error);
            if (error != 0) return note(error, path);
        } else if (S_ISLNK(st.st_mode)) {
            entry.kind = EntryKind::symlink;
            std::string target(static_cast<std::size_t>(st.st_size) + 1, '\0');
            const auto got = ::readlink(path.c_str(), target.data(), target.size());
            if (got < 0) return note(errno, path);
            target.resize(static_cast<std::size_t>(got));
            entry.size = target.size();
            entry.hash = XXH3_64bits(target.data(), target.size());
        } else if (S_ISDIR(st.st_mode)) {
            entry.kind = EntryKind::dir;
        }
        if (!each_(std::move(entry))) {
            result_.stopped = true;
            return false;
        }
        if (!S_ISDIR(st.st_mode) || (prune_ && prune_(path))) return true;
        return list(path, relative);
    }

    bool list(const std::string &path, const std::string &relative) {
        DIR *dir = ::opendir(path.c_str());
        if (dir == nullptr) return note(errno, path);
        std::vector<std::string> names;
        while (const dirent *d = ::readdir(dir)) {
            const std::string name = d->d_name;
            if (name != "." && name != "..") names.push_back(name);
        }
        ::closedir(dir);
        std::sort(names.begin(), names.end());
        for (const auto &name : names) {
            std::string child = path;
            if (child != "/") child += '/';
            child += name;
            struct stat st {};
            if (::lstat(child.c_str(), &st) != 0) {
                if (errno == ENOENT) continue;  // gone since the listing: not there
                note(errno, child);
                continue;
            }
            std::string child_relative = relative;
            if (!child_relative.empty()) child_relative += '/';
            child_relative += name;
            if (!visit(child, child_relative, st)) return false;
        }
        return true;
    }

    // Keeps the first error; the walk goes on.
    bool note(int error, const std::string &path) {
        if (result_.error.empty()) {
            result_.error = "digesting " + path + ": " + std::strerror(error);
            result_.error_code = error;
        }
        return true;
    }

    std::string root_;
    const PruneFn &prune_;
    const EachFn &each_;
    WalkResult result_;
};

}  // namespace

WalkResult walk_tree(const std::string &root, const PruneFn &prune, const EachFn &each) {
    std::string path = root;
    while (path.size() > 1 && path.back() == '/') path.pop_back();
    return Walker(path, prune, each).run();
}

Digest digest_tree(const std::string &root, const PruneFn &prune, bool &found) {
    Digest out;
    const WalkResult r = walk_tree(root, prune, [&out](Entry &&e) {
        out.push_back(std::move(e));
        return true;
    });
    if (!r.error.empty()) throw std::runtime_error(r.error);
    found = r.found;
    return out;
}

}  // namespace liveupdate::tree_digest
