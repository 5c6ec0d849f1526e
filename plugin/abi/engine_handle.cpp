#include "plugin/abi/engine_handle.hpp"

#include <algorithm>
#include <cstring>

#include "common/json_fields.hpp"

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
    return json::object{{"accepted", admission.accepted}, {"kind", admission.kind},       {"name", admission.name},
                        {"errors", std::move(errors)},    {"message", admission.message}, {"due", string_array(due)}};
}

json::object rejection_document(std::string_view message) {
    return json::object{{"accepted", false},       {"kind", ""},         {"name", ""},
                        {"errors", json::array{}}, {"message", message}, {"due", json::array{}}};
}

lu_engine_host copy_host(const lu_engine_host *host) noexcept {
    lu_engine_host copy{};
    if (host == nullptr) return copy;
    std::memcpy(&copy, host, std::min<std::size_t>(host->struct_size, sizeof copy));
    copy.struct_size = sizeof copy;
    return copy;
}

void log_to_host(const lu_engine_host &host, lu_log_level level, std::string_view line) noexcept {
    if (host.log != nullptr) host.log(host.ctx, level, lu_str{line.data(), line.size()});
}

CreateOptions create_options(std::string_view options_json) {
    if (options_json.empty()) return {};
    const json::value v = common::parse_limited(options_json, 1u << 16, 8);
    const auto &o = common::expect_object(v, "options");
    CreateOptions out{common::time_field(o, "startTime", ""), 1};
    // Absent from hosts older than the field: they read version 1 only.
    if (common::member(o, "maxStepVersion") != nullptr) {
        const std::int64_t host_reads = common::int_field(o, "maxStepVersion", "");
        if (host_reads < 1) throw common::DecodeError("maxStepVersion", "expected 1 or more");
        out.step_version = static_cast<int>(std::min<std::int64_t>(host_reads, LU_STEP_VERSION));
    }
    return out;
}

}  // namespace liveupdate::abi_impl
