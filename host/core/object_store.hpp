// The host's objects: kind/name → Tilt-style JSON object, with a
// resourceVersion per change and a count of status writes. Thread-safe.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <boost/json.hpp>

#include "common/mutex.hpp"

namespace liveupdate::host {

struct ObjectKey {
    std::string kind;
    std::string name;
    std::string text() const { return kind + "/" + name; }
    auto operator<=>(const ObjectKey &) const = default;
};

// kind and metadata.name of an object; HostError when either is missing.
ObjectKey key_of(const boost::json::value &object);

struct ObjectChange {
    enum class Type { upserted, deleted, status_written };
    Type type;
    ObjectKey key;
};

class JsonObjectStore {
public:
    using Listener = std::function<void(const ObjectChange &)>;

    // Creates or replaces the object; sets metadata.resourceVersion. With
    // keep_status, an existing object's status is kept (a status subresource:
    // applying a LiveUpdate does not reset what the reconciler wrote).
    std::uint64_t put(boost::json::object object, bool keep_status = false);
    bool remove(const ObjectKey &key);
    std::optional<boost::json::object> get(const ObjectKey &key) const;
    std::vector<boost::json::object> list(std::string_view kind) const;
    std::vector<ObjectKey> keys() const;

    // Replaces the object's status. False (and no write counted) when the
    // object is absent or the status is unchanged.
    bool write_status(const ObjectKey &key, const boost::json::value &status);
    std::uint64_t status_writes(const ObjectKey &key) const;

    // Called after each change, outside the store's lock.
    void add_listener(Listener listener);

private:
    void notify(const ObjectChange &change) const;

    mutable common::Mutex mutex_;
    std::map<ObjectKey, boost::json::object> objects_ LU_GUARDED_BY(mutex_);
    std::map<ObjectKey, std::uint64_t> status_writes_ LU_GUARDED_BY(mutex_);
    std::uint64_t next_version_ LU_GUARDED_BY(mutex_) = 1;
    std::vector<Listener> listeners_ LU_GUARDED_BY(mutex_);
};

}  // namespace liveupdate::host
