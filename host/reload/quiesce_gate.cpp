#include "host/reload/quiesce_gate.hpp"

#include <algorithm>

namespace liveupdate::host::reload {

QuiesceGate::Pass::~Pass() {
    if (gate_ != nullptr) gate_->leave();
}

QuiesceGate::Hold::~Hold() {
    if (gate_ != nullptr) gate_->reopen();
}

QuiesceGate::Pass QuiesceGate::enter() {
    std::unique_lock lock(mutex_);
    if (closers_ > 0) {
        const Clock::time_point since = Clock::now();
        ++waiting_;
        changed_.wait(lock, [&] { return closers_ == 0; });
        --waiting_;
        longest_wait_ = std::max(longest_wait_, Clock::now() - since);
    }
    ++in_flight_;
    return Pass(this);
}

QuiesceGate::Hold QuiesceGate::close() {
    std::unique_lock lock(mutex_);
    const Clock::time_point closing_at = Clock::now();
    ++closers_;
    changed_.wait(lock, [&] { return in_flight_ == 0 && !held_; });
    held_ = true;
    return Hold(this, closing_at, Clock::now());
}

void QuiesceGate::leave() {
    std::lock_guard lock(mutex_);
    --in_flight_;
    if (in_flight_ == 0) changed_.notify_all();
}

void QuiesceGate::reopen() {
    std::lock_guard lock(mutex_);
    held_ = false;
    --closers_;
    changed_.notify_all();
}

std::size_t QuiesceGate::in_flight() const {
    std::lock_guard lock(mutex_);
    return in_flight_;
}

std::size_t QuiesceGate::closers() const {
    std::lock_guard lock(mutex_);
    return closers_;
}

std::size_t QuiesceGate::waiting() const {
    std::lock_guard lock(mutex_);
    return waiting_;
}

QuiesceGate::Clock::duration QuiesceGate::longest_wait() const {
    std::lock_guard lock(mutex_);
    return longest_wait_;
}

}  // namespace liveupdate::host::reload
