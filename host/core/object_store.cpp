#include "host/core/object_store.hpp"

#include "common/mutex.hpp"
#include "host/core/host_error.hpp"

namespace liveupdate::host {
namespace json = boost::json;

ObjectKey key_of(const json::value &object) {
    const json::object *as_object = object.if_object();
    const json::value *kind = as_object ? as_object->if_contains("kind") : nullptr;
    const json::value *metadata = as_object ? as_object->if_contains("metadata") : nullptr;
    const json::value *name = metadata && metadata->is_object() ? metadata->as_object().if_contains("name") : nullptr;
    if (kind == nullptr || !kind->is_string() || kind->as_string().empty()) {
        throw HostError("invalid object", "kind", "missing or not a string");
    }
    if (name == nullptr || !name->is_string() || name->as_string().empty()) {
        throw HostError("invalid object", std::string(kind->as_string()), "metadata.name missing or not a string");
    }
    return ObjectKey{std::string(kind->as_string()), std::string(name->as_string())};
}

std::uint64_t JsonObjectStore::put(json::object object, bool keep_status) {
    ObjectKey key = key_of(object);
    std::uint64_t version;
    {
        common::MutexLock lock(mutex_);
        version = next_version_++;
        auto existing = objects_.find(key);
        if (keep_status) {
            json::value status = json::object{};
            if (existing != objects_.end()) {
                if (const json::value *old = existing->second.if_contains("status")) status = *old;
            }
            object["status"] = std::move(status);
        }
        json::value &metadata = object["metadata"];
        if (metadata.is_object()) metadata.as_object()["resourceVersion"] = std::to_string(version);
        objects_[key] = std::move(object);
    }
    notify(ObjectChange{ObjectChange::Type::upserted, key});
    return version;
}

bool JsonObjectStore::remove(const ObjectKey &key) {
    {
        common::MutexLock lock(mutex_);
        if (objects_.erase(key) == 0) return false;
    }
    notify(ObjectChange{ObjectChange::Type::deleted, key});
    return true;
}

std::optional<json::object> JsonObjectStore::get(const ObjectKey &key) const {
    common::MutexLock lock(mutex_);
    auto found = objects_.find(key);
    if (found == objects_.end()) return std::nullopt;
    return found->second;
}

std::vector<json::object> JsonObjectStore::list(std::string_view kind) const {
    common::MutexLock lock(mutex_);
    std::vector<json::object> result;
    for (const auto &[key, object] : objects_) {
        if (key.kind == kind) result.push_back(object);
    }
    return result;
}

std::vector<ObjectKey> JsonObjectStore::keys() const {
    common::MutexLock lock(mutex_);
    std::vector<ObjectKey> result;
    for (const auto &[key, object] : objects_) result.push_back(key);
    return result;
}

bool JsonObjectStore::write_status(const ObjectKey &key, const json::value &status) {
    {
        common::MutexLock lock(mutex_);
        auto found = objects_.find(key);
        if (found == objects_.end()) return false;
        const json::value *old = found->second.if_contains("status");
        if (old != nullptr && *old == status) return false;
        found->second["status"] = status;
        json::value &metadata = found->second["metadata"];
        if (metadata.is_object()) metadata.as_object()["resourceVersion"] = std::to_string(next_version_++);
        ++status_writes_[key];
    }
    notify(ObjectChange{ObjectChange::Type::status_written, key});
    return true;
}

std::uint64_t JsonObjectStore::status_writes(const ObjectKey &key) const {
    common::MutexLock lock(mutex_);
    auto found = status_writes_.find(key);
    return found == status_writes_.end() ? 0 : found->second;
}

void JsonObjectStore::add_listener(Listener listener) {
    common::MutexLock lock(mutex_);
    listeners_.push_back(std::move(listener));
}

void JsonObjectStore::notify(const ObjectChange &change) const {
    std::vector<Listener> listeners;
    {
        common::MutexLock lock(mutex_);
        listeners = listeners_;
    }
    for (const Listener &listener : listeners) listener(change);
}

}  // namespace liveupdate::host
