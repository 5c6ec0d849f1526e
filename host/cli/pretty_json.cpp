#include "host/cli/pretty_json.hpp"

#include "common/json_fields.hpp"

namespace liveupdate::host::cli {

std::string pretty_json(const boost::json::value &value, int indent) {
    const std::string pad(static_cast<std::size_t>(indent + 2), ' ');
    const std::string close_pad(static_cast<std::size_t>(indent), ' ');
    if (value.is_object() && !value.as_object().empty()) {
        std::string out = "{\n";
        bool first = true;
        for (const auto &[k, v] : value.as_object()) {
            if (!first) out += ",\n";
            first = false;
            out += pad + boost::json::serialize(boost::json::string(k)) + ": " + pretty_json(v, indent + 2);
        }
        return out + "\n" + close_pad + "}";
    }
    if (value.is_array() && !value.as_array().empty()) {
        std::string out = "[\n";
        bool first = true;
        for (const auto &v : value.as_array()) {
            if (!first) out += ",\n";
            first = false;
            out += pad + pretty_json(v, indent + 2);
        }
        return out + "\n" + close_pad + "]";
    }
    return boost::json::serialize(value);
}

std::string cell_text(const boost::json::object &row, std::string_view key) {
    const boost::json::value *v = common::member(row, key);
    if (v == nullptr) return "-";
    if (v->is_string()) return std::string(v->as_string());
    if (v->is_array()) {
        std::string out;
        for (const auto &item : v->as_array())
            out += (out.empty() ? "" : ",") +
                   (item.is_string() ? std::string(item.as_string()) : boost::json::serialize(item));
        return out.empty() ? "-" : out;
    }
    return boost::json::serialize(*v);
}

}  // namespace liveupdate::host::cli
