#include "host/reload/quiesce_gate.hpp"
#include "common/mutex.hpp"

#include <algorithm>

namespace liveupdate::host::reload {

QuiesceGate::Pass::~Pass() {
    if (gate_ != nullptr) gate_->leave();
}

QuiesceGate::Hold::~Hold() {
    if (gate_ != nullptr) gate_->reopen();
}

QuiesceGate::Pass QuiesceGate::enter() {
    common::MutexLock lock(mutex_);
    if (closers_ > 0) {
        const Clock::time_point since = Clock::now();
        ++waiting_;
        lock.wait(changed_, [&]() LU_REQUIRES(mutex_) { return closers_ == 0; });
        --waiting_;
        longest_wait_ = std::max(longest_wait_, Clock::now() - since);
    }
    ++in_flight_;
    return Pass(this);
}

QuiesceGate::Hold QuiesceGate::close() {
    common::MutexLock lock(mutex_);
    const Clock::time_point closing_at = Clock::now();
    ++closers_;
    lock.wait(changed_, [&]() LU_REQUIRES(mutex_) { return in_flight_ == 0 && !held_; });
    held_ = true;
    return Hold(this, closing_at, Clock::now());
}

void QuiesceGate::leave() {
    common::MutexLock lock(mutex_);
    --in_flight_;
    if (in_flight_ == 0) changed_.notify_all();
}

void QuiesceGate::reopen() {
    common::MutexLock lock(mutex_);
    held_ = false;
    --closers_;
    changed_.notify_all();
}

std::size_t QuiesceGate::in_flight() const {
    common::MutexLock lock(mutex_);
    return in_flight_;
}

std::size_t QuiesceGate::closers() const {
    common::MutexLock lock(mutex_);
    return closers_;
}

std::size_t QuiesceGate::waiting() const {
    common::MutexLock lock(mutex_);
    return waiting_;
}

QuiesceGate::Clock::duration QuiesceGate::longest_wait() const {
    common::MutexLock lock(mutex_);
    return longest_wait_;
}

}  // namespace liveupdate::host::reload
