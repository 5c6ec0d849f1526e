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

Schema string(const std::string &description);
Schema boolean(const std::string &description);
Schema integer(const std::string &description);
// metav1.Time / MicroTime: RFC 3339 text.
Schema time(const std::string &description);
Schema array(Schema items, const std::string &description);
Schema string_array(const std::string &description);
Schema string_map(const std::string &description);
// required: names of properties that must be present.
Schema object(const std::string &description, std::initializer_list<Property> properties,
              std::initializer_list<const char *> required = {});
// Also keeps fields no property names (written by other controllers).
Schema open_object(const std::string &description, std::initializer_list<Property> properties);

}  // namespace liveupdate::host::cluster::schema
