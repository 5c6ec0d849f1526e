#include "host/cluster/openapi_schema.hpp"

namespace liveupdate::host::cluster::schema {
namespace json = boost::json;

namespace {

Schema typed(const char *type, const std::string &description) {
    Schema s{{"type", type}};
    if (!description.empty()) s["description"] = description;
    return s;
}

}  // namespace

Schema string(const std::string &description) { return typed("string", description); }
Schema boolean(const std::string &description) { return typed("boolean", description); }
Schema integer(const std::string &description) { return typed("integer", description); }

Schema time(const std::string &description) {
    Schema s = typed("string", description);
    s["format"] = "date-time";
    return s;
}

Schema array(Schema items, const std::string &description) {
    Schema s = typed("array", description);
    s["items"] = std::move(items);
    return s;
}

Schema string_array(const std::string &description) { return array(string(""), description); }

Schema string_map(const std::string &description) {
    Schema s = typed("object", description);
    s["additionalProperties"] = string("");
    return s;
}

Schema object(const std::string &description, std::initializer_list<Property> properties,
              std::initializer_list<const char *> required) {
    Schema s = typed("object", description);
    json::object props;
    for (const auto &[name, schema] : properties) props[name] = schema;
    s["properties"] = std::move(props);
    if (required.size() > 0) {
        json::array names;
        for (const char *name : required) names.emplace_back(name);
        s["required"] = std::move(names);
    }
    return s;
}

Schema open_object(const std::string &description, std::initializer_list<Property> properties) {
    Schema s = object(description, properties);
    s["x-kubernetes-preserve-unknown-fields"] = true;
    return s;
}

}  // namespace liveupdate::host::cluster::schema
