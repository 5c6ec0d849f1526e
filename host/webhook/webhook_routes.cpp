#include "host/webhook/webhook_routes.hpp"

#include <chrono>

#include "host/core/host_metrics.hpp"
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
    if (path == "/validate" || path == "/mutate") {
        const bool validating = path == "/validate";
        if (request.method != "POST")
            return text(405, "POST an admission.k8s.io/v1 AdmissionReview to " + std::string(path) + "\n");
        const auto began = std::chrono::steady_clock::now();
        ReviewFacts facts;
        HttpAnswer answer = validating ? answer_review(request.body, validate, kPlaceholderRoot, &facts)
                                       : answer_mutation(request.body, inject, &facts);
        metrics::record_admission(
            {.webhook = validating ? "validate" : "mutate",
             .kind = facts.kind,
             .operation = facts.operation,
             .verdict = facts.verdict,
             .seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - began).count()});
        return answer;
    }
    if (path == "/healthz") {
        if (request.method != "GET" && request.method != "HEAD") return text(405, "GET /healthz\n");
        return text(200, "ok\n");
    }
    if (path == "/metrics") {
        if (request.method != "GET" && request.method != "HEAD") return text(405, "GET /metrics\n");
        return HttpAnswer{200, std::string(metrics::kContentType), metrics::webhook_metrics_text()};
    }
    return text(404, "not found: the webhook answers POST /validate, POST /mutate, GET /healthz and GET /metrics\n");
}

}  // namespace liveupdate::host::webhook
