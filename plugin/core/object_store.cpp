#include "plugin/core/object_store.hpp"

namespace liveupdate {

api::ObjectPtr ObjectStore::get(api::Kind kind, const std::string &name) const {
    const auto it = objects_.find({kind, name});
    return it == objects_.end() ? nullptr : it->second;
}

void ObjectStore::put(api::ObjectPtr object) {
    auto key = std::make_pair(object->kind, object->meta.name);
    objects_[std::move(key)] = std::move(object);
}

bool ObjectStore::erase(api::Kind kind, const std::string &name) { return objects_.erase({kind, name}) > 0; }

}  // namespace liveupdate
