#include "agent/digest.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <string>
#include <vector>

#define XXH_INLINE_ALL
#include <xxhash.h>

namespace liveupdate::agent {
namespace {

std::uint64_t hash_file(const std::string &path, int &error) {
    const int fd = ::open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) {
        error = errno;
        return 0;
    }
    XXH3_state_t state;
    XXH3_64bits_reset(&state);
    char buffer[64 * 1024];
    for (;;) {
        const auto got = ::read(fd, buffer, sizeof buffer);
        if (got == 0) break;
        if (got < 0) {
            if (errno == EINTR) continue;
            error = errno;
            break;
        }
        XXH3_64bits_update(&state, buffer, static_cast<std::size_t>(got));
    }
    ::close(fd);
    return XXH3_64bits_digest(&state);
}

class Walker {
public:
    Walker(std::string root, FrameOutput &out) : root_(std::move(root)), out_(out) {}

    // The first error met, with its path; the walk goes on past it.
    Result walk(const std::string &relative) {
        const std::string path = relative.empty() ? root_ : (root_ == "/" ? "" : root_) + "/" + relative;
        struct stat st {};
        if (::lstat(path.c_str(), &st) != 0) return note(errno, path);
        DigestEntry entry{relative, 0, static_cast<std::uint32_t>(st.st_mode & 07777), 0, 0};
        if (S_ISREG(st.st_mode)) {
            entry.kind = static_cast<std::uint8_t>(EntryType::file);
            entry.size = static_cast<std::uint64_t>(st.st_size);
            int error = 0;
            entry.hash = hash_file(path, error);
            if (error != 0) return note(error, path);
        } else if (S_ISLNK(st.st_mode)) {
            entry.kind = static_cast<std::uint8_t>(EntryType::symlink);
            std::string target(static_cast<std::size_t>(st.st_size) + 1, '\0');
            const auto got = ::readlink(path.c_str(), target.data(), target.size());
            if (got < 0) return note(errno, path);
            target.resize(static_cast<std::size_t>(got));
            entry.size = target.size();
            entry.hash = XXH3_64bits(target.data(), target.size());
        } else if (S_ISDIR(st.st_mode)) {
            entry.kind = static_cast<std::uint8_t>(EntryType::dir);
        } else {
            entry.kind = static_cast<std::uint8_t>(EntryType::other);
        }
        out_.send(encode(entry));
        if (S_ISDIR(st.st_mode)) list(path, relative);
        return first_;
    }

private:
    void list(const std::string &path, const std::string &relative) {
        DIR *dir = ::opendir(path.c_str());
        if (dir == nullptr) {
            note(errno, path);
            return;
        }
        std::vector<std::string> names;
        while (const dirent *entry = ::readdir(dir)) {
            const std::string name = entry->d_name;
            if (name != "." && name != "..") names.push_back(name);
        }
        ::closedir(dir);
        std::sort(names.begin(), names.end());
        for (const auto &name : names) walk(relative.empty() ? name : relative + "/" + name);
    }

    Result note(int error, const std::string &path) {
        if (first_.error == 0) first_ = {error, "digesting " + path + ": " + std::strerror(error)};
        return first_;
    }

    std::string root_;
    FrameOutput &out_;
    Result first_;
};

}  // namespace

Result digest_tree(const Digest &request, FrameOutput &out) {
    std::string root = request.path;
    while (root.size() > 1 && root.back() == '/') root.pop_back();
    return Walker(root, out).walk("");
}

}  // namespace liveupdate::agent
