#include "common/tree_digest/tree_digest.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstring>
#include <memory>
#include <span>
#include <stdexcept>

#define XXH_INLINE_ALL
#include <xxhash.h>

#include "common/file_hash/file_hash.hpp"

namespace liveupdate::tree_digest {
namespace {

using Clock = std::chrono::steady_clock;

// statfs f_type values of linux/magic.h, spelled here so that the static
// agent builds without kernel headers.
constexpr std::array<std::uint32_t, 21> kPseudoFilesystems{
    0x9fa0,      // proc
    0x62656572,  // sysfs
    0x1cd1,      // devpts
    0x27e0eb,    // cgroup
    0x63677270,  // cgroup2
    0x64626720,  // debugfs
    0x74726163,  // tracefs
    0x73636673,  // securityfs
    0xcafe4a11,  // bpf
    0x62656570,  // configfs
    0x6165676c,  // pstore
    0xf97cff8c,  // selinuxfs
    0x43415d53,  // smackfs
    0x19800202,  // mqueue
    0x65735543,  // fusectl
    0x42494e4d,  // binfmt_misc
    0x6e736673,  // nsfs
    0xde5e81e4,  // efivarfs
    0x958458f6,  // hugetlbfs
    0x0187,      // autofs (descending mounts what it names)
    0x50495045,  // pipefs
};

class Walker {
public:
    Walker(std::string root, const WalkOptions &options, const EachFn &each)
        : root_(std::move(root)), options_(options), each_(each), started_(Clock::now()), last_asked_(started_) {}

    WalkResult run() {
        struct stat st {};
        if (::lstat(root_.c_str(), &st) != 0) {
            if (errno == ENOENT || errno == ENOTDIR) return {false, false, {}, 0, false};
            note(errno, root_);
            return result_;
        }
        visit(root_, "", st, nullptr);
        return result_;
    }

private:
    enum class Read { done, failed, stop };

    // False once the walk is to stop. parent: the folder's stat, nullptr for the root.
    bool visit(const std::string &path, const std::string &relative, const struct stat &st, const struct stat *parent) {
        if (!within_budget()) return false;
        // Another filesystem begins here: one that holds no files is neither read nor descended.
        const bool pseudo = (parent == nullptr || parent->st_dev != st.st_dev) && on_pseudo_filesystem(path);
        Entry entry{relative, EntryKind::other, static_cast<std::uint32_t>(st.st_mode & 07777), 0, 0};
        if (S_ISREG(st.st_mode)) {
            entry.kind = EntryKind::file;
            entry.size = static_cast<std::uint64_t>(st.st_size);
            if (!pseudo && (!options_.hash_content || options_.hash_content(relative))) {
                int error = 0;
                const Read read = hash_file(path, entry.hash, error);
                if (read == Read::stop) return false;
                if (read == Read::failed) return note(error, path);
            }
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
        if (!S_ISDIR(st.st_mode) || pseudo || (options_.prune && options_.prune(path))) return true;
        return list(path, relative, st);
    }

    bool list(const std::string &path, const std::string &relative, const struct stat &dir_stat) {
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
            if (!visit(child, child_relative, st, &dir_stat)) return false;
        }
        return true;
    }

    static bool on_pseudo_filesystem(const std::string &path) {
        struct statfs fs {};
        return ::statfs(path.c_str(), &fs) == 0 && is_pseudo_filesystem(static_cast<std::int64_t>(fs.f_type));
    }

    // Hashes a file's content into hash; errno's value in error when it cannot be read.
    Read hash_file(const std::string &path, std::uint64_t &hash, int &error) {
        const int fd = ::open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
        if (fd < 0) {
            error = errno;
            return Read::failed;
        }
        if (!within_budget()) {
            ::close(fd);
            return Read::stop;
        }
        // One buffer for the whole walk, never zeroed: lu-agent's Digest hashes many small files.
        if (!buffer_) buffer_ = std::make_unique_for_overwrite<char[]>(kBufferSize);
        const file_hash::FdHash content =
            file_hash::hash_fd(fd, {buffer_.get(), kBufferSize}, [this](std::span<const char> chunk) {
                read_bytes_ += chunk.size();
                return within_budget();
            });
        ::close(fd);
        hash = content.hash;
        if (content.stopped) return Read::stop;
        if (content.error == 0) return Read::done;
        error = content.error;
        return Read::failed;
    }

    // False once the walk is over its budget or asked to stop (result_ says which).
    bool within_budget() {
        if (result_.over_budget || result_.stopped) return false;
        const auto now = Clock::now();
        const auto spent = std::chrono::duration_cast<std::chrono::milliseconds>(now - started_);
        if (options_.max_bytes != 0 && read_bytes_ > options_.max_bytes)
            return over_budget("it read more than " + std::to_string(options_.max_bytes >> 20) + " MiB");
        if (options_.max_time.count() != 0 && spent > options_.max_time)
            return over_budget("it took more than " + std::to_string(options_.max_time.count()) + " ms");
        if (options_.keep_going && now - last_asked_ >= std::chrono::milliseconds(100)) {
            last_asked_ = now;
            if (!options_.keep_going()) {
                result_.stopped = true;
                return false;
            }
        }
        return true;
    }

    bool over_budget(const std::string &why) {
        result_.over_budget = true;
        result_.error = "the digest of " + root_ + " is incomplete: " + why + " (read " +
                        std::to_string(read_bytes_ >> 20) + " MiB), its budget per digest";
        result_.error_code = ETIMEDOUT;
        return false;
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
    const WalkOptions &options_;
    const EachFn &each_;
    WalkResult result_;
    Clock::time_point started_;
    Clock::time_point last_asked_;
    std::uint64_t read_bytes_ = 0;
    static constexpr std::size_t kBufferSize = std::size_t{256} * 1024;
    std::unique_ptr<char[]> buffer_;
};

}  // namespace

std::string entry_path_problem(std::string_view path) {
    if (path.empty()) return {};
    const std::string shown = "the path '" + std::string(path.substr(0, 200)) + (path.size() > 200 ? "...'" : "'");
    if (path.find('\0') != std::string_view::npos) return shown + " holds a NUL byte";
    if (path.front() == '/') return shown + " is absolute, not beneath the digested folder";
    for (std::size_t begin = 0; begin <= path.size();) {
        const std::size_t end = std::min(path.find('/', begin), path.size());
        const std::string_view name = path.substr(begin, end - begin);
        if (name.empty() || name == "." || name == "..")
            return shown + " has an empty, '.' or '..' name: it does not name one path beneath the digested folder";
        begin = end + 1;
    }
    return {};
}

bool is_pseudo_filesystem(std::int64_t f_type) {
    const auto type = static_cast<std::uint32_t>(f_type);
    return std::find(kPseudoFilesystems.begin(), kPseudoFilesystems.end(), type) != kPseudoFilesystems.end();
}

WalkResult walk_tree(const std::string &root, const WalkOptions &options, const EachFn &each) {
    std::string path = root;
    while (path.size() > 1 && path.back() == '/') path.pop_back();
    return Walker(path, options, each).run();
}

Digest digest_tree(const std::string &root, const WalkOptions &options, bool &found) {
    Digest out;
    const WalkResult r = walk_tree(root, options, [&out](Entry &&e) {
        out.push_back(std::move(e));
        return true;
    });
    if (!r.error.empty()) throw std::runtime_error(r.error);
    found = r.found;
    return out;
}

}  // namespace liveupdate::tree_digest
