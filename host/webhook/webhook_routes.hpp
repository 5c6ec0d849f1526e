// What the webhook answers: POST /validate (AdmissionReview), GET /healthz
// (probes: "ok" while a plugin is in service), 404 and 405 otherwise.
#pragma once

#include "host/webhook/admission_review.hpp"
#include "host/webhook/webhook_server.hpp"

namespace liveupdate::host::webhook {

HttpAnswer route(const HttpRequest &request, const Validator &validate);

}  // namespace liveupdate::host::webhook
