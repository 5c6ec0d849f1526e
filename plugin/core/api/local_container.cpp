#include "plugin/core/api/local_container.hpp"

#include "common/json_fields.hpp"

namespace liveupdate::api {
using namespace common;

namespace {

// env may be written as ["K=V", ...] or as {"K": "V"}.
std::vector<std::string> decode_env(const json::object &spec) {
    const auto *v = member(spec, "env");
    if (v == nullptr) return {};
    if (v->is_object()) {
        std::vector<std::string> out;
        for (const auto &[k, val] : string_map_field(spec, "env", "spec"))
            out.push_back(std::string(k).append("=").append(val));
        return out;
    }
    if (!v->is_array()) throw DecodeError("spec.env", "expected array or object");
    return string_array_field(spec, "env", "spec");
}

}  // namespace

LocalContainer decode_local_container(const json::object &object) {
    LocalContainer lc;
    if (const auto *spec = object_field(object, "spec", "")) {
        lc.spec.root = string_field(*spec, "root", "spec");
        lc.spec.command = string_array_field(*spec, "command", "spec");
        lc.spec.working_dir = string_field(*spec, "workingDir", "spec");
        lc.spec.env = decode_env(*spec);
    }
    lc.status = decode_runtime_container_status(object_field(object, "status", ""));
    return lc;
}

}  // namespace liveupdate::api
