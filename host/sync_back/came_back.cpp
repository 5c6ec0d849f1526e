#include "host/sync_back/came_back.hpp"

#include <fcntl.h>
#include <sys/stat.h>

#include <utility>

#include "common/paths.hpp"
#include "common/unique_fd.hpp"
#include "host/sync_back/beneath_files.hpp"

namespace liveupdate::host::sync_back {

namespace {

// beneath_files.cpp's temporary files: ".lu-sync-back-PID-N.tmp" (a write)
// and ".lu-sync-back-PID-N.aside" (a delete).
bool temporary_name(const std::string &path) {
    const std::string_view base = std::string_view(path).substr(path.rfind('/') + 1);
    return base.starts_with(".lu-sync-back-") && (base.ends_with(".tmp") || base.ends_with(".aside"));
}

// The digest of a regular file (not through a symlink); "" when it is none.
std::string file_digest(const std::string &path) {
    const common::UniqueFd fd(::open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC));
    struct stat st {};
    if (fd.get() < 0 || ::fstat(fd.get(), &st) != 0 || !S_ISREG(st.st_mode)) return {};
    std::string error;
    std::string digest = content_digest(fd.get(), error);
    return error.empty() ? digest : std::string();
}

std::string parent_of(const std::string &path) {
    const std::size_t slash = path.rfind('/');
    return slash == 0 || slash == std::string::npos ? "/" : path.substr(0, slash);
}

}  // namespace

void CameBack::expect(const std::string &local_file, Shape after) {
    const auto [it, fresh] = files_.try_emplace(local_file);
    // What it wrote before stays its own until this one ended; a path it never wrote is not.
    it->second.before = fresh ? std::nullopt : std::optional<Shape>(std::move(it->second.after));
    it->second.after = std::move(after);
}

void CameBack::expect_written(const std::string &local_file, const std::string &digest, const std::string &local_root) {
    common::MutexLock lock(mutex_);
    expect(local_file, digest);
    for (std::string folder = parent_of(local_file);
         folder.size() > local_root.size() && common::child_path(local_root, folder); folder = parent_of(folder)) {
        struct stat st {};
        // One there holds the rest of the way: only those beneath it are made.
        if (::lstat(folder.c_str(), &st) == 0) break;
        folders_.insert(folder);
    }
}

void CameBack::expect_deleted(const std::string &local_file) {
    common::MutexLock lock(mutex_);
    expect(local_file, std::nullopt);
}

void CameBack::ended(const std::string &local_file, bool in_place) {
    common::MutexLock lock(mutex_);
    const auto it = files_.find(local_file);
    if (it == files_.end()) return;
    std::optional<Shape> before = std::move(it->second.before);
    it->second.before.reset();
    if (in_place) return;
    if (before)
        it->second.after = std::move(*before);
    else
        files_.erase(it);
}

bool CameBack::is_echo(const std::string &path) {
    if (temporary_name(path)) return true;
    common::MutexLock lock(mutex_);
    struct stat st {};
    const bool exists = ::lstat(path.c_str(), &st) == 0;
    if (const auto it = files_.find(path); it != files_.end()) {
        // A file that is no regular file (a folder, a symlink) is never as sync back leaves a path.
        const bool regular = exists && S_ISREG(st.st_mode);
        const auto holds = [&, digest = regular ? file_digest(path) : std::string()](const Shape &shape) {
            return shape ? regular && digest == *shape : !exists;
        };
        if (holds(it->second.after) || (it->second.before && holds(*it->second.before))) return true;
        files_.erase(it);
        return false;
    }
    if (const auto it = folders_.find(path); it != folders_.end()) {
        if (exists && S_ISDIR(st.st_mode)) return true;
        folders_.erase(it);
    }
    return false;
}

}  // namespace liveupdate::host::sync_back
