#include "host/up/event_consumers.hpp"

namespace liveupdate::host::up {

void EventConsumers::expect(std::uint64_t seq, const std::vector<std::string> &live_updates) {
    if (live_updates.empty()) return;
    waiting_[seq].insert(live_updates.begin(), live_updates.end());
}

void EventConsumers::reconciled(const std::string &live_update, std::uint64_t seen) {
    for (auto it = waiting_.begin(); it != waiting_.end() && it->first <= seen;) {
        it->second.erase(live_update);
        it = it->second.empty() ? waiting_.erase(it) : std::next(it);
    }
}

void EventConsumers::forget(const std::string &live_update) {
    for (auto it = waiting_.begin(); it != waiting_.end();) {
        it->second.erase(live_update);
        it = it->second.empty() ? waiting_.erase(it) : std::next(it);
    }
}

}  // namespace liveupdate::host::up
