// Builders of structural OpenAPI v3 schemas (apiextensions.k8s.io/v1): every
// node has a type, objects list their properties, so the API server checks
// types and prunes what no schema names.
#pragma once

#include <initializer_list>
#include <string>
#include <utility>

#include <boost/json.hpp>

namespace liveupdate::host::cluster::schema {

using Schema = boost::json::object;
using Property = std::pair<std::string, Schema>;

Schema string(std::string description);
Schema boolean(std::string description);
Schema integer(std::string description);
// metav1.Time / MicroTime: RFC 3339 text.
Schema time(std::string description);
Schema array(Schema items, std::string description);
Schema string_array(std::string description);
Schema string_map(std::string description);
// required: names of properties that must be present.
Schema object(std::string description, std::initializer_list<Property> properties,
              std::initializer_list<const char *> required = {});
// Also keeps fields no property names (written by other controllers).
Schema open_object(std::string description, std::initializer_list<Property> properties);

}  // namespace liveupdate::host::cluster::schema
