#include "plugin/abi/engine_handle.hpp"

#include "plugin/core/json_fields.hpp"

namespace liveupdate::abi_impl {
namespace json = boost::json;

json::array string_array(const std::vector<std::string> &items) {
    json::array out;
    for (const auto &s : items) out.emplace_back(s);
    return out;
}

json::object admission_document(const AdmissionResult &admission, const std::vector<std::string> &due) {
    json::array errors;
    for (const auto &e : admission.errors) errors.push_back(json::object{{"field", e.field}, {"message", e.message}});
    return json::object{{"accepted", admission.accepted},
                        {"kind", admission.kind},
                        {"name", admission.name},
                        {"errors", std::move(errors)},
                        {"message", admission.message},
                        {"due", string_array(due)}};
}

MicroTime start_time_option(std::string_view options_json) {
    if (options_json.empty()) return {};
    const json::value v = json_fields::parse_limited(options_json, 1u << 16, 8);
    const auto &o = json_fields::expect_object(v, "options");
    return json_fields::time_field(o, "startTime", "");
}

}  // namespace liveupdate::abi_impl
