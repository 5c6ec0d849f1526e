// An update with a forward guard (docs/sync-back.md, "Forward writes over a
// container change") that reaches its container without lu-agent of
// protocol 8 writes as before, unguarded: its log says so once per
// container, with why, rather than on every save.
#pragma once

#include <set>
#include <string>

#include "common/mutex.hpp"
#include "liveupdate/updater.hpp"

namespace liveupdate::updaters {

class UnguardedNotices {
public:
    // Logs (info) that request's forward writes to `shown` are unguarded
    // because of `why`, the first time for `container` (a key: its ID); not
    // when the request carries no guard. [thread-safe]
    void note(const updater::Request &request, const std::string &container, const std::string &shown,
              const std::string &why) LU_EXCLUDES(mutex_);

private:
    common::Mutex mutex_;
    std::set<std::string> told_ LU_GUARDED_BY(mutex_);
};

}  // namespace liveupdate::updaters
