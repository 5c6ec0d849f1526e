#include "host/verify/first_sight.hpp"

#include <exception>

namespace liveupdate::host::verify {

std::string FirstSight::key_of(const LiveUpdateTargets &lu, const RunningContainer &container) {
    const host::SyncedKey key = host::SyncedKey::of(lu.name, lu.via, container.ref.id, container.ref.root);
    return key.live_update + '\0' + key.via + '\0' + key.container;
}

bool FirstSight::any_unchecked(const std::vector<LiveUpdateTargets> &live_updates) {
    for (const LiveUpdateTargets &lu : live_updates) {
        if (!lu.problem.empty()) continue;
        for (const RunningContainer &c : lu.containers) {
            {
                const common::MutexLock lock(mutex_);
                if (checked_.count(key_of(lu, c)) != 0) continue;
            }
            try {
                if (journals_.has_earlier_paths(host::SyncedKey::of(lu.name, lu.via, c.ref.id, c.ref.root)))
                    return true;
            } catch (const std::exception &) {
                return true;  // a journal that cannot be read: the verification says why
            }
        }
    }
    return false;
}

void FirstSight::checked(const LiveUpdateTargets &lu) {
    const common::MutexLock lock(mutex_);
    for (const RunningContainer &c : lu.containers) checked_.insert(key_of(lu, c));
}

}  // namespace liveupdate::host::verify
