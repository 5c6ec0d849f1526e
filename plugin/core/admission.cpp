#include "plugin/core/admission.hpp"

#include <optional>
#include <stdexcept>

#include "common/ignore_patterns.hpp"
#include "common/json_fields.hpp"
#include "common/object_name.hpp"
#include "common/text_format.hpp"
#include "plugin/core/document_arena.hpp"

namespace liveupdate {
namespace {

bool is_abs(const std::string &p) { return !p.empty() && p.front() == '/'; }

bool has_dotdot_segment(std::string_view p) {
    std::size_t start = 0;
    while (start <= p.size()) {
        const auto end = p.find('/', start);
        const auto seg = p.substr(start, end == std::string_view::npos ? std::string_view::npos : end - start);
        if (seg == "..") return true;
        if (end == std::string_view::npos) break;
        start = end + 1;
    }
    return false;
}

FieldError invalid(std::string field, const std::string &value, const std::string &why) {
    return {std::move(field), "Invalid value: " + common::go_quote(value) + ": " + why};
}
FieldError required(std::string field, const std::string &why) { return {std::move(field), "Required value: " + why}; }
FieldError forbidden(std::string field, const std::string &why) { return {std::move(field), "Forbidden: " + why}; }

std::string join_errors(const std::string &kind, const std::string &name, const std::vector<FieldError> &errors) {
    std::string out = kind.empty() ? std::string("object") : kind;
    if (!name.empty()) out += " " + common::go_quote(name);
    out += " is invalid: ";
    for (std::size_t i = 0; i < errors.size(); ++i) {
        if (i > 0) out += "; ";
        out += errors[i].field.empty() ? errors[i].message : errors[i].field + ": " + errors[i].message;
    }
    return out;
}

// Best effort: kind and name of a document that failed to decode, for the report.
void peek_identity(const boost::json::value &v, std::string &kind, std::string &name) {
    if (!v.is_object()) return;
    const auto &o = v.get_object();
    if (const auto *k = common::member(o, "kind"); k && k->is_string()) kind = std::string(k->get_string());
    if (const auto *m = common::member(o, "metadata"); m && m->is_object())
        if (const auto *n = common::member(m->get_object(), "name"); n && n->is_string())
            name = std::string(n->get_string());
}

// Sync back's patterns are relative to containerPath and never leave it.
void validate_sync_back(const api::LiveUpdateSync &sync, const std::string &field, std::vector<FieldError> &errors) {
    for (std::size_t j = 0; j < sync.sync_back.size(); ++j) {
        const std::string &pattern = sync.sync_back[j];
        const std::string at = field + "[" + std::to_string(j) + "]";
        if (pattern.empty() || pattern == "!")
            errors.push_back(invalid(at, pattern, "a syncBack pattern must not be empty"));
        else if (is_abs(pattern) || (pattern.front() == '!' && is_abs(pattern.substr(1))))
            errors.push_back(invalid(at, pattern, "a syncBack pattern is relative to containerPath"));
        else if (has_dotdot_segment(pattern))
            errors.push_back(invalid(at, pattern, "a syncBack pattern must not contain \"..\""));
        else
            try {
                common::IgnorePatterns("/", {pattern});
            } catch (const std::invalid_argument &e) {
                errors.push_back(invalid(at, pattern, e.what()));
            }
    }
}

}  // namespace

// A01 (Tilt's checks), A03, L01.
std::vector<FieldError> validate_live_update(const api::LiveUpdateSpec &spec) {
    std::vector<FieldError> errors;
    if (spec.syncs.empty() && spec.execs.empty() && spec.restart_paths.empty())
        errors.push_back(invalid("spec.syncs", "", "must contain at least 1 sync or 1 exec to run on live update"));
    if (!spec.base_path.empty() && !is_abs(spec.base_path))
        errors.push_back(invalid("spec.basePath", spec.base_path, "base path is not absolute"));
    for (std::size_t i = 0; i < spec.syncs.size(); ++i) {
        const auto &cp = spec.syncs[i].container_path;
        const std::string field = "spec.syncs[" + std::to_string(i) + "]";
        if (!is_abs(cp))
            errors.push_back(invalid(field, cp, "sync destination is not absolute"));
        else if (has_dotdot_segment(cp))
            errors.push_back(invalid(field + ".containerPath", cp, "sync destination must not contain \"..\""));
        validate_sync_back(spec.syncs[i], field + ".syncBack", errors);
    }
    const auto &sel = spec.selector;
    if (sel.kubernetes) {
        const std::string p = "spec.selector.kubernetes";
        if (sel.kubernetes->discovery_name.empty())
            errors.push_back(required(p + ".discoveryName", "KubernetesDiscovery name is required"));
        std::vector<std::string> chosen;
        if (!sel.kubernetes->image.empty()) chosen.push_back(p + ".image");
        if (!sel.kubernetes->container_name.empty()) chosen.push_back(p + ".containerName");
        if (!sel.kubernetes->image_map_name.empty()) chosen.push_back(p + ".imageMap");
        if (chosen.empty())
            errors.push_back(required(p, "exactly one of image, imageMap, or containerName is required"));
        else if (chosen.size() > 1)
            for (auto &f : chosen)
                errors.push_back(
                    forbidden(std::move(f), "cannot specify more than one of image, imageMap, or containerName"));
    } else if (sel.docker_compose) {
        if (sel.docker_compose->service.empty())
            errors.push_back(required("spec.selector.dockerCompose.service", "DockerCompose service name is required"));
    } else if (sel.local) {
        if (sel.local->container.empty())
            errors.push_back(required("spec.selector.local.container", "LocalContainer name is required"));
    }
    return errors;
}

// A02: bad input is refused for that object alone, with its field and reason.
AdmissionResult admit(std::string_view object_json) {
    AdmissionResult result;
    std::optional<boost::json::value> raw;  // emplaced: assigning would copy out of the document's arena
    try {
        raw.emplace(parse_document(object_json));
    } catch (const common::DecodeError &e) {
        result.errors.push_back({e.field(), e.reason()});
        result.message = e.reason();
        return result;
    }
    peek_identity(*raw, result.kind, result.name);
    // Checked before decoding: a bad name is reported beside a bad field.
    if (!result.name.empty())
        if (auto problem = common::object_name_problem(result.name))
            result.errors.push_back(invalid("metadata.name", result.name, *problem));
    try {
        result.object = api::decode_api_object(std::move(*raw));
    } catch (const common::DecodeError &e) {
        result.errors.push_back({e.field(), e.reason()});
        result.message = join_errors(result.kind, result.name, result.errors);
        result.object.reset();
        return result;
    }
    if (const auto *lu = std::get_if<api::LiveUpdate>(&result.object->body))
        for (auto &e : validate_live_update(lu->spec)) result.errors.push_back(std::move(e));
    if (!result.errors.empty()) {
        result.message = join_errors(result.kind, result.name, result.errors);
        result.object.reset();
        return result;
    }
    result.accepted = true;
    return result;
}

}  // namespace liveupdate
