#include "host/core/object_store.hpp"

#include "common/json_fields.hpp"
#include "common/mutex.hpp"
#include "host/core/host_error.hpp"

namespace liveupdate::host {
namespace json = boost::json;

ObjectKey key_of(const json::value &object) {
    std::string kind;
    std::string name;
    // Where: the field, after the object's kind once it is known.
    const auto invalid = [&kind](const std::string &field, const std::string &why) {
        return HostError("invalid object", kind.empty() ? field : kind + " " + field, why);
    };
    try {
        kind = common::string_field(object, {"kind"});
        if (kind.empty()) throw invalid("kind", "missing or empty");
        name = common::string_field(object, {"metadata", "name"});
    } catch (const common::DecodeError &e) {
        throw invalid(e.field().empty() ? "object" : e.field(), e.reason());
    }
    if (name.empty()) throw invalid("metadata.name", "missing or empty");
    return ObjectKey{std::move(kind), std::move(name)};
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
                if (const json::value *old = common::member(existing->second, "status")) status = *old;
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
        const json::value *old = common::member(found->second, "status");
        if (old != nullptr ? *old == status : status.is_null()) return false;
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
