#include "common/stream_cancel.hpp"

namespace liveupdate::common {

bool StreamCancel::cancel() {
    cancelled_ = true;
    MutexLock lock(mutex_);
    if (!wake_) return false;
    wake_();
    return true;
}

void StreamCancel::attach(std::function<void()> wake) {
    MutexLock lock(mutex_);
    wake_ = std::move(wake);
}

void StreamCancel::detach() {
    MutexLock lock(mutex_);
    wake_ = nullptr;
}

}  // namespace liveupdate::common
