#include "host/up/manual_triggers.hpp"
#include "common/mutex.hpp"

#include <algorithm>
#include <stdexcept>

#include "common/json_fields.hpp"

namespace liveupdate::host::up {
namespace json = boost::json;
using common::LogLevel;

namespace {

constexpr const char *kOrigin = "lu-host trigger";

// Its annotation tilt.dev/resource: the name the trigger queue uses.
std::string manifest_of(const json::object &live_update) {
    return common::string_field(live_update, {"metadata", "annotations", "tilt.dev/resource"});
}

json::object error(std::string text) { return json::object{{"error", std::move(text)}}; }

}  // namespace

ManualTriggers::ManualTriggers(const JsonObjectStore &store, const Declarations &declarations, AdmitFn admit,
                               MarkDueFn mark_due, UpLog &log)
    : store_(store), declarations_(declarations), admit_(std::move(admit)), mark_due_(std::move(mark_due)), log_(log) {}

json::value ManualTriggers::trigger(const json::value *names) {
    if (names == nullptr || !names->is_array() || names->as_array().empty())
        return error("trigger needs \"names\": a list of LiveUpdate names");
    std::vector<std::string> manifests;
    json::array triggered;
    for (const auto &n : names->as_array()) {
        const std::string name = n.is_string() ? std::string(n.as_string()) : json::serialize(n);
        const std::optional<json::object> lu = store_.get(ObjectKey{"LiveUpdate", name});
        if (!lu) {
            if (auto r = declarations_.rejection(name))
                return error(std::string("LiveUpdate \"")
                                 .append(name)
                                 .append("\" was rejected (")
                                 .append(r->message)
                                 .append("); `lu-host describe liveupdate ")
                                 .append(name)
                                 .append("` says why"));
            return error("LiveUpdate \"" + name + "\" not found (`lu-host get liveupdates` lists them)");
        }
        const std::string manifest = manifest_of(*lu);
        if (manifest.empty())
            return error("LiveUpdate \"" + name +
                         "\" has no tilt.dev/resource annotation: the trigger queue names manifests, so it cannot "
                         "be triggered");
        if (std::find(manifests.begin(), manifests.end(), manifest) == manifests.end()) manifests.push_back(manifest);
        triggered.push_back(json::object{{"name", name}, {"manifest", manifest}});
    }
    common::MutexLock lock(queue_mutex_);
    for (const auto &manifest : manifests) {
        const json::object queue = queue_with(store_.get(ObjectKey{"ConfigMap", kTriggerQueueName}), manifest);
        std::vector<std::string> due;
        try {
            due = admit_(queue, kOrigin);
        } catch (const std::runtime_error &e) {
            return error("manifest " + manifest + " not queued: " + e.what());
        }
        // Recorded before the reconciles it asks for can run.
        tracker_.queued(manifest, live_updates_of(manifest));
        mark_due_(due);
        log_.write(LogLevel::info, "", "trigger: manifest " + manifest + " queued");
    }
    return json::object{{"triggered", std::move(triggered)}};
}

void ManualTriggers::reconciled(const std::string &live_update, std::uint64_t began) {
    take_off(tracker_.reconciled(live_update, began));
}

void ManualTriggers::forget(const std::string &live_update) { take_off(tracker_.forget(live_update)); }

void ManualTriggers::take_off(const std::vector<std::string> &manifests) {
    if (manifests.empty()) return;
    common::MutexLock lock(queue_mutex_);
    const std::optional<json::object> current = store_.get(ObjectKey{"ConfigMap", kTriggerQueueName});
    if (!current) return;
    std::vector<std::string> due;
    try {
        due = admit_(queue_without(*current, {manifests.begin(), manifests.end()}), kOrigin);
    } catch (const std::runtime_error &e) {
        log_.write(LogLevel::warn, "", std::string("trigger: served manifests not taken off the queue: ") + e.what());
        return;
    }
    // Reconciled once more, a manual LiveUpdate shows it waits for a trigger again.
    for (const auto &manifest : manifests)
        for (auto &lu : live_updates_of(manifest)) due.push_back(std::move(lu));
    mark_due_(due);
}

void ManualTriggers::queue_declared(const json::object &queue) {
    for (const auto &manifest : queued_manifests(queue))
        if (!tracker_.tracks(manifest)) {
            tracker_.queued(manifest, live_updates_of(manifest));
            log_.write(LogLevel::info, "", "trigger: manifest " + manifest + " queued (by its declaration)");
        }
}

std::vector<std::string> ManualTriggers::live_updates_of(const std::string &manifest) const {
    std::vector<std::string> out;
    for (const auto &lu : store_.list("LiveUpdate"))
        if (manifest_of(lu) == manifest) out.push_back(common::string_field(lu.at("metadata"), {"name"}));
    return out;
}

}  // namespace liveupdate::host::up
