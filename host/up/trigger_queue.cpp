#include "host/up/trigger_queue.hpp"
#include "common/json_fields.hpp"
#include "common/mutex.hpp"

#include <algorithm>
#include <limits>

namespace liveupdate::host::up {
namespace json = boost::json;

namespace {

bool is_name_key(std::string_view key) { return key.ends_with("-name"); }

json::object queue_of(const std::vector<std::string> &manifests, json::object base) {
    json::object data;
    for (std::size_t i = 0; i < manifests.size(); ++i) data[std::to_string(i) + "-name"] = manifests[i];
    base["apiVersion"] = "tilt.dev/v1alpha1";
    base["kind"] = "ConfigMap";
    if (!base.contains("metadata") || !base["metadata"].is_object()) base["metadata"] = json::object{};
    base["metadata"].as_object()["name"] = kTriggerQueueName;
    base.erase("status");
    base["data"] = std::move(data);
    return base;
}

}  // namespace

std::vector<std::string> queued_manifests(const json::object &queue) {
    std::vector<std::pair<long, std::string>> numbered;
    const json::value *data = common::member(queue, "data");
    if (data == nullptr || !data->is_object()) return {};
    for (const auto &[key, value] : data->as_object()) {
        if (!is_name_key(key) || !value.is_string()) continue;
        long index = 0;
        try {
            index = std::stol(std::string(key.substr(0, key.size() - 5)));
        } catch (const std::exception &) {
            index = 0;  // a hand-written key: kept, ordered first
        }
        numbered.emplace_back(index, std::string(value.as_string()));
    }
    std::stable_sort(numbered.begin(), numbered.end(), [](const auto &a, const auto &b) { return a.first < b.first; });
    std::vector<std::string> out;
    for (auto &[index, name] : numbered)
        if (std::find(out.begin(), out.end(), name) == out.end()) out.push_back(std::move(name));
    return out;
}

json::object queue_with(const std::optional<json::object> &current, const std::string &manifest) {
    std::vector<std::string> manifests = current ? queued_manifests(*current) : std::vector<std::string>{};
    if (std::find(manifests.begin(), manifests.end(), manifest) == manifests.end()) manifests.push_back(manifest);
    return queue_of(manifests, current.value_or(json::object{}));
}

json::object queue_without(const json::object &current, const std::set<std::string> &manifests) {
    std::vector<std::string> kept = queued_manifests(current);
    std::erase_if(kept, [&](const std::string &m) { return manifests.contains(m); });
    return queue_of(kept, current);
}

std::uint64_t TriggerTracker::generation() const {
    common::MutexLock lock(mutex_);
    return generation_;
}

void TriggerTracker::queued(const std::string &manifest, const std::vector<std::string> &live_updates) {
    common::MutexLock lock(mutex_);
    Waiting &w = waiting_[manifest];
    w.generation = ++generation_;
    w.live_updates.insert(live_updates.begin(), live_updates.end());
}

std::vector<std::string> TriggerTracker::reconciled(const std::string &live_update, std::uint64_t began) {
    common::MutexLock lock(mutex_);
    std::vector<std::string> served;
    for (auto it = waiting_.begin(); it != waiting_.end();) {
        if (began >= it->second.generation) it->second.live_updates.erase(live_update);
        if (it->second.live_updates.empty()) {
            served.push_back(it->first);
            it = waiting_.erase(it);
        } else {
            ++it;
        }
    }
    return served;
}

bool TriggerTracker::tracks(const std::string &manifest) const {
    common::MutexLock lock(mutex_);
    return waiting_.contains(manifest);
}

// Gone counts as reconciled after every queueing: nothing waits for it.
std::vector<std::string> TriggerTracker::forget(const std::string &live_update) {
    return reconciled(live_update, std::numeric_limits<std::uint64_t>::max());
}

}  // namespace liveupdate::host::up
