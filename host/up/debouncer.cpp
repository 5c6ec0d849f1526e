#include "up/debouncer.hpp"

#include <algorithm>

namespace liveupdate::up {

void Debouncer::add(std::string path, Clock::time_point now) {
    if (pending_.empty()) first_ = now;
    last_ = now;
    pending_.insert(std::move(path));
}

std::optional<Debouncer::Clock::time_point> Debouncer::deadline() const {
    if (pending_.empty()) return std::nullopt;
    return std::min(last_ + quiet_, first_ + max_wait_);
}

bool Debouncer::ready(Clock::time_point now) const {
    const auto due = deadline();
    return due.has_value() && now >= *due;
}

std::vector<std::string> Debouncer::take() {
    std::vector<std::string> out(pending_.begin(), pending_.end());
    pending_.clear();
    return out;
}

}  // namespace liveupdate::up
