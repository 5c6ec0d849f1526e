#include "host/webhook/mutation_review.hpp"

#include "host/webhook/certificates.hpp"

namespace liveupdate::host::webhook {
namespace json = boost::json;

namespace {

bool is_pod_create(const ReviewRequest &r) {
    return r.operation == "CREATE" && r.group.empty() && r.version == "v1" && r.kind == "Pod";
}

}  // namespace

json::object mutation_response(const ReviewRequest &request, const Injection &injection) {
    json::object response{{"uid", request.uid}, {"allowed", true}};
    if (!injection.patch.empty()) {
        response["patchType"] = "JSONPatch";
        response["patch"] = base64_encode(json::serialize(injection.patch));
    }
    if (!injection.warnings.empty()) {
        json::array warnings;
        for (const auto &w : injection.warnings) warnings.emplace_back(w);
        response["warnings"] = std::move(warnings);
    }
    return json::object{
        {"apiVersion", "admission.k8s.io/v1"}, {"kind", "AdmissionReview"}, {"response", std::move(response)}};
}

HttpAnswer answer_mutation(std::string_view body, const InjectionOptions &options, ReviewFacts *facts) {
    ReviewRequest request;
    try {
        request = parse_review(body);
        if (is_pod_create(request) && !request.object.is_object())
            throw BadReview("request.object: expected an object for CREATE of Pod");
    } catch (const BadReview &e) {
        if (facts != nullptr) *facts = ReviewFacts{"", "", "invalid"};
        return bad_review_answer(e);
    }
    Injection injection;
    // The namespace's labels are not in the review: the configuration's
    // selectors chose it (the webhook reads no namespaces, so it needs no API access).
    if (is_pod_create(request))
        injection = plan_injection(request.object, PodNamespace{request.namespace_name, std::nullopt}, options);
    if (facts != nullptr)
        *facts = ReviewFacts{request.kind, request.operation, injection.patch.empty() ? "allowed" : "patched"};
    return HttpAnswer{200, "application/json", json::serialize(mutation_response(request, injection))};
}

}  // namespace liveupdate::host::webhook
