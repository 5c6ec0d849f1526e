#include "host/webhook/admission_review.hpp"

#include <set>

#include "common/json_fields.hpp"
#include "common/text_format.hpp"
#include "host/cluster/cluster_kinds.hpp"
#include "host/cluster/cluster_objects.hpp"
#include "host/core/admission_warnings.hpp"

namespace liveupdate::host::webhook {
namespace json = boost::json;

namespace {

constexpr std::string_view kReviewVersion = "admission.k8s.io/v1";

const json::object &object_member(const json::object &o, std::string_view key, const std::string &where) {
    const json::value *v = o.if_contains(key);
    if (v == nullptr || !v->is_object()) throw BadReview(where + std::string(key) + ": expected an object");
    return v->as_object();
}

std::string string_member(const json::object &o, std::string_view key, const std::string &where, bool required) {
    const json::value *v = o.if_contains(key);
    if (v == nullptr || v->is_null()) {
        if (required) throw BadReview(where + std::string(key) + ": required");
        return {};
    }
    if (!v->is_string()) throw BadReview(where + std::string(key) + ": expected a string");
    return std::string(v->as_string());
}

bool is_judged(const ReviewRequest &r) {
    return (r.operation == "CREATE" || r.operation == "UPDATE") && r.group == cluster::kGroup &&
           r.version == cluster::kVersion && cluster::find_cluster_kind(r.kind) != nullptr;
}

std::string joined(const ReviewRequest &r, const std::string &name, const std::vector<Cause> &causes) {
    std::string out = r.kind + " " + common::go_quote(name) + " is invalid: ";
    for (std::size_t i = 0; i < causes.size(); ++i) {
        if (i > 0) out += "; ";
        out += causes[i].field.empty() ? causes[i].message : causes[i].field + ": " + causes[i].message;
    }
    return out;
}

// Kubernetes' field.ErrorType names, from the message's first words.
std::string cause_reason(const std::string &message) {
    if (message.rfind("Required value", 0) == 0) return "FieldValueRequired";
    if (message.rfind("Forbidden", 0) == 0) return "FieldValueForbidden";
    if (message.rfind("Unsupported value", 0) == 0) return "FieldValueNotSupported";
    return "FieldValueInvalid";
}

std::vector<Cause> plugin_causes(const json::object &admission, const std::set<std::string> &already) {
    std::vector<Cause> out;
    const json::value *errors = admission.if_contains("errors");
    if (errors == nullptr || !errors->is_array()) return out;
    for (const auto &e : errors->as_array()) {
        if (!e.is_object()) continue;
        Cause cause{common::text_at(e.as_object(), "field"), common::text_at(e.as_object(), "message")};
        // A path the cluster rule refused stays as written; the plugin saying so again adds nothing.
        if (already.count(cause.field) == 0) out.push_back(std::move(cause));
    }
    return out;
}

}  // namespace

ReviewRequest parse_review(std::string_view body) {
    boost::system::error_code ec;
    json::value parsed = json::parse(body, ec);
    if (ec) throw BadReview("not JSON: " + ec.message());
    if (!parsed.is_object()) throw BadReview("not a JSON object");
    const json::object &review = parsed.as_object();
    const std::string api_version = string_member(review, "apiVersion", "", true);
    const std::string kind = string_member(review, "kind", "", true);
    if (kind != "AdmissionReview" || api_version != kReviewVersion)
        throw BadReview("expected an " + std::string(kReviewVersion) + " AdmissionReview, got " + api_version + " " +
                        kind);
    const json::object &request = object_member(review, "request", "");
    ReviewRequest out;
    out.uid = string_member(request, "uid", "request.", true);
    out.operation = string_member(request, "operation", "request.", true);
    const json::object &gvk = object_member(request, "kind", "request.");
    out.group = string_member(gvk, "group", "request.kind.", false);
    out.version = string_member(gvk, "version", "request.kind.", true);
    out.kind = string_member(gvk, "kind", "request.kind.", true);
    out.name = string_member(request, "name", "request.", false);
    if (const json::value *dry = request.if_contains("dryRun"); dry != nullptr && !dry->is_null()) {
        if (!dry->is_bool()) throw BadReview("request.dryRun: expected a boolean");
        out.dry_run = dry->as_bool();
    }
    if (const json::value *object = request.if_contains("object"); object != nullptr) out.object = *object;
    if (is_judged(out) && !out.object.is_object())
        throw BadReview("request.object: expected an object for " + out.operation + " of " + out.kind);
    return out;
}

Verdict judge(const ReviewRequest &request, const Validator &validate, std::string_view root) {
    Verdict verdict;
    if (!is_judged(request)) return verdict;
    cluster::ResolvedObject resolved = cluster::resolve_cluster_object(request.object.as_object(), root);
    const json::object *meta = common::object_at(resolved.object, "metadata");
    const std::string name = meta != nullptr ? common::text_at(*meta, "name") : request.name;
    std::set<std::string> refused_fields;
    for (auto &e : resolved.errors) {
        refused_fields.insert(e.field);
        verdict.causes.push_back({std::move(e.field), std::move(e.message)});
    }
    json::object admission;
    try {
        admission = validate(json::serialize(resolved.object));
    } catch (const std::exception &e) {
        verdict.allowed = false;
        verdict.message =
            "the liveupdate plugin could not judge " + request.kind + " " + common::go_quote(name) + ": " + e.what();
        return verdict;
    }
    for (auto &cause : plugin_causes(admission, refused_fields)) verdict.causes.push_back(std::move(cause));
    const json::value *accepted = admission.if_contains("accepted");
    const bool plugin_accepts = accepted != nullptr && accepted->is_bool() && accepted->as_bool();
    if (!verdict.causes.empty()) {
        verdict.allowed = false;
        verdict.message = joined(request, name, verdict.causes);
    } else if (!plugin_accepts) {
        verdict.allowed = false;
        const std::string why = common::text_at(admission, "message");
        verdict.message = why.empty() ? request.kind + " " + common::go_quote(name) + " is refused" : why;
    } else {
        verdict.warnings = admission_warnings(resolved.object);
    }
    return verdict;
}

json::object review_response(const ReviewRequest &request, const Verdict &verdict) {
    json::object response{{"uid", request.uid}, {"allowed", verdict.allowed}};
    if (!verdict.allowed) {
        json::array causes;
        for (const auto &c : verdict.causes)
            causes.push_back(
                json::object{{"reason", cause_reason(c.message)}, {"field", c.field}, {"message", c.message}});
        const std::string name =
            request.object.is_object() ? common::text_at(request.object, {"metadata", "name"}) : request.name;
        // 422 Invalid with causes: kubectl prints each field, as for the API server's own validation.
        response["status"] = json::object{
            {"status", "Failure"},
            {"code", verdict.causes.empty() ? 403 : 422},
            {"reason", verdict.causes.empty() ? "Forbidden" : "Invalid"},
            {"message", verdict.message},
            {"details",
             json::object{
                 {"group", request.group}, {"kind", request.kind}, {"name", name}, {"causes", std::move(causes)}}}};
    }
    if (!verdict.warnings.empty()) {
        json::array warnings;
        for (const auto &w : verdict.warnings) warnings.emplace_back(w);
        response["warnings"] = std::move(warnings);
    }
    return json::object{{"apiVersion", kReviewVersion}, {"kind", "AdmissionReview"}, {"response", std::move(response)}};
}

HttpAnswer answer_review(std::string_view body, const Validator &validate, std::string_view root) {
    ReviewRequest request;
    try {
        request = parse_review(body);
    } catch (const BadReview &e) {
        return HttpAnswer{400, "text/plain; charset=utf-8", std::string("bad AdmissionReview: ") + e.what() + "\n"};
    }
    return HttpAnswer{200, "application/json",
                      json::serialize(review_response(request, judge(request, validate, root)))};
}

}  // namespace liveupdate::host::webhook
