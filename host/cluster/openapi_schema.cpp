#include "host/cluster/openapi_schema.hpp"

namespace liveupdate::host::cluster::schema {
namespace json = boost::json;

namespace {

Schema typed(const char *type, std::string description) {
    Schema s{{"type", type}};
    if (!description.empty()) s["description"] = std::move(description);
    return s;
}

}  // namespace

Schema string(std::string description) { return typed("string", std::move(description)); }
Schema boolean(std::string description) { return typed("boolean", std::move(description)); }
Schema integer(std::string description) { return typed("integer", std::move(description)); }

Schema time(std::string description) {
    Schema s = typed("string", std::move(description));
    s["format"] = "date-time";
    return s;
}

Schema array(Schema items, std::string description) {
    Schema s = typed("array", std::move(description));
    s["items"] = std::move(items);
    return s;
}

Schema string_array(std::string description) { return array(string(""), std::move(description)); }

Schema string_map(std::string description) {
    Schema s = typed("object", std::move(description));
    s["additionalProperties"] = string("");
    return s;
}

Schema object(std::string description, std::initializer_list<Property> properties,
              std::initializer_list<const char *> required) {
    Schema s = typed("object", std::move(description));
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

Schema open_object(std::string description, std::initializer_list<Property> properties) {
    Schema s = object(std::move(description), properties);
    s["x-kubernetes-preserve-unknown-fields"] = true;
    return s;
}

}  // namespace liveupdate::host::cluster::schema
