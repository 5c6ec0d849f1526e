#include "agent/inode_reserve.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>

namespace liveupdate::agent {
namespace {

// Held files keep their space until idle: a burst of rewrites holds no more
// than these and lets the oldest go as it goes.
constexpr std::size_t kMaxHeld = 64;
constexpr off_t kMaxHeldBytes = off_t{8} << 20;

// A spare's first block is allocated with it: ext4 writes back a file renamed
// over another at once when its blocks are still delayed (auto_da_alloc, 0.1
// ms of the rename), not when they are allocated. One block, as a small file
// takes anyway.
constexpr off_t kSpareBlock = 4096;

}  // namespace

void InodeReserve::note_folder(int folder) {
    const int copy = ::fcntl(folder, F_DUPFD_CLOEXEC, 0);
    if (copy >= 0) folder_ = UniqueFd(copy);
}

UniqueFd InodeReserve::take_spare(int folder) {
    if (spare_.get() < 0) return UniqueFd();
    struct stat st {};
    if (::fstat(folder, &st) != 0 || st.st_dev != spare_dev_ || st.st_ino != spare_ino_) return UniqueFd();
    return std::move(spare_);
}

void InodeReserve::hold_replaced(int folder, const std::string &leaf) {
    UniqueFd held(::openat(folder, leaf.c_str(), O_PATH | O_NOFOLLOW | O_CLOEXEC));
    struct stat st {};
    if (held.get() < 0 || ::fstat(held.get(), &st) != 0) return;
    held_bytes_ += st.st_size;
    held_.emplace_back(std::move(held), st.st_size);
    while (held_.size() > kMaxHeld || held_bytes_ > kMaxHeldBytes) {
        held_bytes_ -= held_.front().second;
        held_.pop_front();
    }
}

bool InodeReserve::give_back() {
    const bool any = !held_.empty() || spare_.get() >= 0;
    held_.clear();
    held_bytes_ = 0;
    spare_ = UniqueFd();
    return any;
}

bool InodeReserve::has_idle_work() const {
    return !held_.empty() || (spares_work_ && folder_.get() >= 0 && spare_.get() < 0);
}

void InodeReserve::idle() {
    held_.clear();
    held_bytes_ = 0;
    if (!spares_work_ || folder_.get() < 0 || spare_.get() >= 0) return;
    struct stat st {};
    if (::fstat(folder_.get(), &st) != 0) return;
    UniqueFd spare(::openat(folder_.get(), ".", O_TMPFILE | O_WRONLY | O_CLOEXEC, 0600));
    if (spare.get() < 0) {
        // No unnamed files here (an old kernel, another filesystem): none are tried again.
        if (errno == EOPNOTSUPP || errno == EISDIR || errno == EINVAL) spares_work_ = false;
        folder_ = UniqueFd();
        return;
    }
    // A hint: where it cannot be done the write costs what it did.
    (void)::fallocate(spare.get(), FALLOC_FL_KEEP_SIZE, 0, kSpareBlock);
    spare_ = std::move(spare);
    spare_dev_ = st.st_dev;
    spare_ino_ = st.st_ino;
}

}  // namespace liveupdate::agent
