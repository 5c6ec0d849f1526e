#include "host/webhook/webhook_routes.hpp"

#include "host/webhook/mutation_review.hpp"

namespace liveupdate::host::webhook {

namespace {

std::string_view path_of(std::string_view target) { return target.substr(0, target.find('?')); }

HttpAnswer text(unsigned status, std::string body) {
    return HttpAnswer{status, "text/plain; charset=utf-8", std::move(body)};
}

}  // namespace

HttpAnswer route(const HttpRequest &request, const Validator &validate, const InjectionOptions &inject) {
    const std::string_view path = path_of(request.target);
    if (path == "/validate") {
        if (request.method != "POST") return text(405, "POST an admission.k8s.io/v1 AdmissionReview to /validate\n");
        return answer_review(request.body, validate);
    }
    if (path == "/mutate") {
        if (request.method != "POST") return text(405, "POST an admission.k8s.io/v1 AdmissionReview to /mutate\n");
        return answer_mutation(request.body, inject);
    }
    if (path == "/healthz") {
        if (request.method != "GET" && request.method != "HEAD") return text(405, "GET /healthz\n");
        return text(200, "ok\n");
    }
    return text(404, "not found: the webhook answers POST /validate, POST /mutate and GET /healthz\n");
}

}  // namespace liveupdate::host::webhook
