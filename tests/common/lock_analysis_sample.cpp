// Compiled by clang with -Wthread-safety (tests/common/CMakeLists.txt), not
// linked: a read of a member its mutex guards must be refused without the
// lock (lock_analysis_refuses) and accepted with it (lock_analysis_accepts),
// so that common::Mutex and the annotations keep meaning something to clang.
#include "common/mutex.hpp"

namespace {

class Counter {
public:
    int read() {
#ifdef LU_TAKE_THE_LOCK
        liveupdate::common::MutexLock lock(mutex_);
#endif
        return count_;
    }

private:
    liveupdate::common::Mutex mutex_;
    int count_ LU_GUARDED_BY(mutex_) = 0;
};

}  // namespace

int lock_analysis_sample() { return Counter().read(); }
