#include "host/sync_back/left_temporaries.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cstring>

#include "common/open_beneath.hpp"
#include "common/unique_fd.hpp"
#include "common/utf8.hpp"

namespace liveupdate::host::sync_back {
namespace {

using common::UniqueFd;

struct timespec realtime_now() {
    struct timespec now {};
    ::clock_gettime(CLOCK_REALTIME, &now);
    return now;
}

// Taken as the program loads, before any sync back writes.
const struct timespec process_start = realtime_now();

constexpr time_t kAbandonedAfterSeconds = 3600;
// A file's times come from a coarse clock, a little behind CLOCK_REALTIME.
constexpr time_t kClockSlackSeconds = 1;
// Deeper folders are not looked into: a bound on the walk's stack.
constexpr int kMostDepth = 128;

bool before(const struct timespec &a, const struct timespec &b) {
    return a.tv_sec < b.tv_sec || (a.tv_sec == b.tv_sec && a.tv_nsec < b.tv_nsec);
}

bool digits(std::string_view text, unsigned long long &value) {
    if (text.empty() || text.size() > 10) return false;
    const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
    return error == std::errc() && end == text.data() + text.size();
}

bool process_runs(pid_t pid) { return ::kill(pid, 0) == 0 || errno == EPERM; }

std::string shown(const std::string &folder, std::string_view name) {
    return common::printable_path(folder + "/" + std::string(name));
}

// dir (opened beneath the root, as `folder`): its temporaries left behind
// removed, and its folders looked into.
void clean_folder(UniqueFd dir, const std::string &folder, int depth, LeftTemporaries &out) {
    const int listing = ::dup(dir.get());
    DIR *entries = listing < 0 ? nullptr : ::fdopendir(listing);
    if (entries == nullptr) {
        if (listing >= 0) ::close(listing);
        out.errors.push_back(common::printable_path(folder) + ": cannot list: " + std::strerror(errno));
        return;
    }
    std::vector<std::string> folders;
    while (const dirent *entry = ::readdir(entries)) {
        const std::string_view name = entry->d_name;
        if (name == "." || name == "..") continue;
        if (entry->d_type == DT_DIR || entry->d_type == DT_UNKNOWN) folders.emplace_back(name);
        const std::optional<pid_t> owner = temporary_owner(name);
        if (!owner) continue;
        struct stat st {};
        if (::fstatat(dir.get(), entry->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0) continue;
        if (!S_ISREG(st.st_mode) || st.st_nlink != 1 || st.st_uid != ::geteuid()) continue;
        const TemporaryLook look{.owner = *owner,
                                 .owner_runs = process_runs(*owner),
                                 .modified = st.st_mtim,
                                 .own_pid = ::getpid(),
                                 .own_start = process_start,
                                 .now = realtime_now()};
        if (!left_behind(look)) continue;
        if (::unlinkat(dir.get(), entry->d_name, 0) == 0)
            out.removed.push_back(shown(folder, name));
        else if (errno != ENOENT)
            out.errors.push_back(shown(folder, name) + ": cannot remove: " + std::strerror(errno));
    }
    ::closedir(entries);
    if (depth >= kMostDepth) return;
    for (const std::string &name : folders) {
        // A symlink, or anything but a folder, is refused here: not followed.
        common::OpenedFd inner = common::open_beneath(dir.get(), name, O_RDONLY | O_DIRECTORY);
        if (!inner.ok()) continue;
        std::string inner_folder = folder;
        inner_folder.append("/").append(name);
        clean_folder(std::move(inner.fd), inner_folder, depth + 1, out);
    }
}

}  // namespace

std::optional<pid_t> temporary_owner(std::string_view name) {
    constexpr std::string_view prefix = ".lu-sync-back-", suffix = ".tmp";
    if (!name.starts_with(prefix) || !name.ends_with(suffix)) return std::nullopt;
    name.remove_prefix(prefix.size());
    name.remove_suffix(suffix.size());
    const std::size_t dash = name.find('-');
    unsigned long long pid = 0, count = 0;
    if (dash == std::string_view::npos || !digits(name.substr(0, dash), pid) || !digits(name.substr(dash + 1), count))
        return std::nullopt;
    if (pid == 0 || pid > 0x7fffffff) return std::nullopt;
    return static_cast<pid_t>(pid);
}

bool left_behind(const TemporaryLook &look) {
    struct timespec start = look.own_start;
    start.tv_sec -= kClockSlackSeconds;
    if (look.owner == look.own_pid) return before(look.modified, start);  // else maybe one of ours being written
    if (!look.owner_runs) return true;
    struct timespec abandoned = look.now;
    abandoned.tv_sec -= kAbandonedAfterSeconds;
    return before(look.modified, abandoned);
}

LeftTemporaries remove_left_temporaries(const std::string &local_root) {
    LeftTemporaries out;
    UniqueFd root(::open(local_root.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
    if (root.get() < 0) {
        if (errno != ENOENT)
            out.errors.push_back(common::printable_path(local_root) + ": cannot open: " + std::strerror(errno));
        return out;
    }
    clean_folder(std::move(root), local_root, 0, out);
    return out;
}

}  // namespace liveupdate::host::sync_back
