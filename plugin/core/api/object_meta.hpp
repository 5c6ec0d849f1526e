// metadata of every API object: the fields the reconciler reads.
#pragma once

#include <map>
#include <string>

#include <boost/json.hpp>

namespace liveupdate::api {

inline constexpr const char *kAnnotationManifest = "tilt.dev/resource";
inline constexpr const char *kAnnotationManagedBy = "tilt.dev/managed-by";
inline constexpr const char *kAnnotationUpdateMode = "tilt.dev/update-mode";
inline constexpr const char *kUpdateModeManual = "manual";

struct ObjectMeta {
    std::string name;
    std::string namespace_name;
    std::map<std::string, std::string> annotations;

    std::string annotation(const std::string &key) const {
        const auto it = annotations.find(key);
        return it == annotations.end() ? std::string{} : it->second;
    }
};

// Reads `metadata` of a whole object; a missing name is an error.
ObjectMeta decode_object_meta(const boost::json::object &object);

}  // namespace liveupdate::api
