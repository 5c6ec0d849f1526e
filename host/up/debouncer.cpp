#include "host/up/debouncer.hpp"

#include <algorithm>

namespace liveupdate::host::up {

void Debouncer::add(std::string path, Clock::time_point now, Change change) {
    if (pending_.empty()) {
        first_ = now;
        began_quiet_ = !seen_any_ || now - last_ >= quiet_;
    }
    seen_any_ = true;
    last_ = now;
    pending_.insert(std::move(path));
    if (change == Change::completed_write && began_quiet_) due_now_ = true;
}

std::optional<Debouncer::Clock::time_point> Debouncer::deadline() const {
    if (pending_.empty()) return std::nullopt;
    if (due_now_) return first_;
    return std::min(last_ + quiet_, first_ + max_wait_);
}

bool Debouncer::ready(Clock::time_point now) const {
    const auto due = deadline();
    return due.has_value() && now >= *due;
}

std::vector<std::string> Debouncer::take() {
    std::vector<std::string> out(pending_.begin(), pending_.end());
    pending_.clear();
    due_now_ = false;
    return out;
}

}  // namespace liveupdate::host::up
