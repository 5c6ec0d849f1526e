// What the webhook answers: POST /validate and POST /mutate
// (AdmissionReviews, each counted in the metrics), GET /healthz (probes:
// "ok" while a plugin is in service), GET /metrics (Prometheus, no secret
// as operators expose them), 404 and 405 otherwise.
#pragma once

#include "host/webhook/admission_review.hpp"
#include "host/webhook/pod_injection.hpp"
#include "host/webhook/webhook_server.hpp"

namespace liveupdate::host::webhook {

HttpAnswer route(const HttpRequest &request, const Validator &validate, const InjectionOptions &inject);

}  // namespace liveupdate::host::webhook
