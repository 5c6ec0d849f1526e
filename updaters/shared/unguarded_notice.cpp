#include "updaters/shared/unguarded_notice.hpp"

namespace liveupdate::updaters {

void UnguardedNotices::note(const updater::Request &request, const std::string &container, const std::string &shown,
                            const std::string &why) {
    if (!request.guard) return;
    {
        common::MutexLock lock(mutex_);
        if (!told_.insert(container).second) return;
    }
    request.log(LU_LOG_INFO, "Forward writes to " + shown + " are unguarded: " + why +
                                 ", so an app change that sync back has not judged yet may be overwritten");
}

}  // namespace liveupdate::updaters
