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

// Kubernetes' "Required value": absent, null and "" alike.
std::string required(std::string value, const std::string &path) {
    if (value.empty()) throw common::DecodeError(path, "required");
    return value;
}

const json::object &required(const json::object *object, const std::string &path) {
    if (object == nullptr) throw common::DecodeError(path, "required");
    return *object;
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
    const json::array *errors = common::array_field(admission, "errors", "admission");
    if (errors == nullptr) return out;
    for (const auto &e : *errors) {
        if (!e.is_object()) continue;
        Cause cause{common::string_field(e.as_object(), {"field"}), common::string_field(e.as_object(), {"message"})};
        // A path the cluster rule refused stays as written; the plugin saying so again adds nothing.
        if (already.count(cause.field) == 0) out.push_back(std::move(cause));
    }
    return out;
}

ReviewRequest review_request(const json::object &review) {
    const std::string api_version = required(common::string_field(review, {"apiVersion"}), "apiVersion");
    const std::string kind = required(common::string_field(review, {"kind"}), "kind");
    if (kind != "AdmissionReview" || api_version != kReviewVersion)
        throw BadReview("expected an " + std::string(kReviewVersion) + " AdmissionReview, got " + api_version + " " +
                        kind);
    const json::object &request = required(common::object_field(review, {"request"}), "request");
    ReviewRequest out;
    out.uid = required(common::string_field(request, "uid", "request"), "request.uid");
    out.operation = required(common::string_field(request, "operation", "request"), "request.operation");
    const json::object &gvk = required(common::object_field(request, "kind", "request"), "request.kind");
    out.group = common::string_field(gvk, "group", "request.kind");
    out.version = required(common::string_field(gvk, "version", "request.kind"), "request.kind.version");
    out.kind = required(common::string_field(gvk, "kind", "request.kind"), "request.kind.kind");
    out.name = common::string_field(request, "name", "request");
    out.namespace_name = common::string_field(request, "namespace", "request");
    out.dry_run = common::bool_field(request, "dryRun", "request");
    if (const json::value *object = common::member(request, "object")) out.object = *object;
    if (is_judged(out) && !out.object.is_object())
        throw BadReview("request.object: expected an object for " + out.operation + " of " + out.kind);
    return out;
}

}  // namespace

ReviewRequest parse_review(std::string_view body) {
    json::value parsed;
    try {
        parsed = common::parse_limited(body);
    } catch (const common::DecodeError &e) {
        throw BadReview("not JSON: " + std::string(e.what()));
    }
    if (!parsed.is_object()) throw BadReview("not a JSON object");
    try {
        return review_request(parsed.as_object());
    } catch (const common::DecodeError &e) {
        throw BadReview(e.what());
    }
}

Verdict judge(const ReviewRequest &request, const Validator &validate, std::string_view root) {
    Verdict verdict;
    if (!is_judged(request)) return verdict;
    cluster::ResolvedObject resolved = cluster::resolve_cluster_object(request.object.as_object(), root);
    const json::object *meta = common::object_field(resolved.object, {"metadata"});
    const std::string name = meta != nullptr ? common::string_field(*meta, {"name"}) : request.name;
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
    const bool plugin_accepts = common::bool_field(admission, "accepted", "admission");
    if (!verdict.causes.empty()) {
        verdict.allowed = false;
        verdict.message = joined(request, name, verdict.causes);
    } else if (!plugin_accepts) {
        verdict.allowed = false;
        const std::string why = common::string_field(admission, {"message"});
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
            request.object.is_object() ? common::string_field(request.object, {"metadata", "name"}) : request.name;
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

HttpAnswer bad_review_answer(const BadReview &e) {
    return HttpAnswer{400, "text/plain; charset=utf-8", std::string("bad AdmissionReview: ") + e.what() + "\n"};
}

HttpAnswer answer_review(std::string_view body, const Validator &validate, std::string_view root, ReviewFacts *facts) {
    ReviewRequest request;
    try {
        request = parse_review(body);
    } catch (const BadReview &e) {
        if (facts != nullptr) *facts = ReviewFacts{"", "", "invalid"};
        return bad_review_answer(e);
    }
    const Verdict verdict = judge(request, validate, root);
    if (facts != nullptr) *facts = ReviewFacts{request.kind, request.operation, verdict.allowed ? "allowed" : "denied"};
    return HttpAnswer{200, "application/json", json::serialize(review_response(request, verdict))};
}

}  // namespace liveupdate::host::webhook
