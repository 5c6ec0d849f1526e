#include "host/core/waiting_connections.hpp"

#include <optional>
#include <utility>

namespace liveupdate::host {

std::uint64_t WaitingConnections::add(Drop drop) {
    std::optional<std::pair<std::uint64_t, Drop>> oldest;
    std::uint64_t id = 0;
    {
        common::MutexLock lock(mutex_);
        id = next_++;
        waiting_.emplace(id, std::move(drop));
        if (waiting_.size() > limit_) {
            oldest.emplace(waiting_.begin()->first, std::move(waiting_.begin()->second));
            waiting_.erase(waiting_.begin());
        }
    }
    // Outside the lock: the drop may take other locks on its way to the strand.
    if (oldest) oldest->second(oldest->first);
    return id;
}

void WaitingConnections::remove(std::uint64_t id) {
    common::MutexLock lock(mutex_);
    waiting_.erase(id);
}

std::size_t WaitingConnections::size() const {
    common::MutexLock lock(mutex_);
    return waiting_.size();
}

}  // namespace liveupdate::host
