// Which origin (an object file, a Compose project's first file) declares which
// object: the declaration in use per object, every origin's declaration of it
// (when one stops declaring it, another's takes over), and the LiveUpdates
// admission refused. Thread-safe; the daemon's objects go by it.
#pragma once

#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <boost/json.hpp>

#include "common/mutex.hpp"
#include "host/core/object_store.hpp"
#include "host/up/object_files.hpp"

namespace liveupdate::host::up {

struct Rejection {
    std::string file;
    boost::json::value errors;
    std::string message;
};

class Declarations {
public:
    // What declare() found: unchanged (nothing to do), or the origin whose declaration it replaces.
    struct Declared {
        bool changed = true;
        std::string replaced_from;  // another origin that declared it too ("" when none)
    };
    // What replace() took away from an origin: objects nobody declares any more, and
    // declarations of other origins that take over.
    struct Replaced {
        std::vector<ObjectKey> gone;
        std::vector<DeclaredObject> fallbacks;
    };

    // The origin is known, with or without objects.
    void track(const std::string &origin);
    Declared declare(const DeclaredObject &d, const std::string &text);
    // The origin now declares load's objects: it stops declaring every other key it declared.
    Replaced replace(const std::string &origin, const FileLoad &load);
    void remove(const ObjectKey &key);

    // The object as its declaration in use spells it.
    std::optional<boost::json::object> declared(const ObjectKey &key) const;
    std::optional<std::string> origin_of(const ObjectKey &key) const;
    // Origins that are files directly in dir.
    std::set<std::string> origins_in(const std::string &dir) const;
    std::size_t origin_count() const;

    void reject(const std::string &live_update, Rejection why);
    void admit(const std::string &live_update);
    std::optional<Rejection> rejection(const std::string &live_update) const;
    std::map<std::string, Rejection> rejections() const;

private:
    struct InUse {
        std::string file;
        std::string text;
    };

    mutable common::Mutex mutex_;
    std::map<std::string, std::vector<ObjectKey>> keys_of_file_ LU_GUARDED_BY(mutex_);
    std::map<ObjectKey, InUse> in_use_ LU_GUARDED_BY(mutex_);
    // Every origin's declaration of a key, the one in use last.
    std::map<ObjectKey, std::vector<DeclaredObject>> declarations_ LU_GUARDED_BY(mutex_);
    std::map<std::string, Rejection> rejected_ LU_GUARDED_BY(mutex_);  // LiveUpdate name → why admission refused it
};

}  // namespace liveupdate::host::up
