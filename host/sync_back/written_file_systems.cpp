#include "host/sync_back/written_file_systems.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

namespace liveupdate::host::sync_back {

void WrittenFileSystems::add(int folder, const std::string &where) {
    struct stat st {};
    if (::fstat(folder, &st) != 0) {
        errors_.push_back(where + ": cannot look at its folder: " + std::strerror(errno));
        return;
    }
    for (const Held &held : held_)
        if (held.device == st.st_dev) return;
    // A mount beneath localPath is another file system: held and flushed too.
    common::UniqueFd readable(::openat(folder, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC));
    if (readable.get() < 0) {
        errors_.push_back(where + ": cannot open its folder: " + std::strerror(errno));
        return;
    }
    held_.push_back({st.st_dev, std::move(readable), where});
}

void WrittenFileSystems::take(WrittenFileSystems &&other) {
    for (Held &theirs : other.held_) {
        const bool known =
            std::any_of(held_.begin(), held_.end(), [&](const Held &held) { return held.device == theirs.device; });
        if (!known) held_.push_back(std::move(theirs));
    }
    errors_.insert(errors_.end(), other.errors_.begin(), other.errors_.end());
    other.clear();
}

std::string WrittenFileSystems::flush() {
    std::string error;
    for (const std::string &e : errors_) error += (error.empty() ? "" : "; ") + e;
    for (const Held &held : held_)
        if (::syncfs(held.folder.get()) != 0)
            error += (error.empty() ? "" : "; ") + held.where +
                     ": cannot flush its file system to disk: " + std::strerror(errno);
    clear();
    return error;
}

void WrittenFileSystems::clear() {
    held_.clear();
    errors_.clear();
}

}  // namespace liveupdate::host::sync_back
