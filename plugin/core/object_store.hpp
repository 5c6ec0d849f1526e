// The objects the plugin was given, by kind and name (namespaces are not
// distinguished: Tilt's objects live in one).
#pragma once

#include <map>
#include <string>
#include <utility>

#include "plugin/core/api/api_object.hpp"

namespace liveupdate {

class ObjectStore {
public:
    api::ObjectPtr get(api::Kind kind, const std::string &name) const;
    void put(api::ObjectPtr object);
    bool erase(api::Kind kind, const std::string &name);

    template <class F>
    void for_each(F &&f) const {
        for (const auto &[key, obj] : objects_) f(obj);
    }

private:
    std::map<std::pair<api::Kind, std::string>, api::ObjectPtr> objects_;
};

}  // namespace liveupdate
