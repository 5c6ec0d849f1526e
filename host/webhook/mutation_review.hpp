// POST /mutate: an AdmissionReview of a pod's CREATE in, an AdmissionReview
// allowing it out, with the injection's JSONPatch (base64, patchType
// JSONPatch) and its warnings. Nothing is ever refused here: the answer
// says allowed for every pod, and every other object or operation passes
// untouched.
#pragma once

#include <string_view>

#include "host/webhook/admission_review.hpp"
#include "host/webhook/pod_injection.hpp"

namespace liveupdate::host::webhook {

boost::json::object mutation_response(const ReviewRequest &request, const Injection &injection);

// 200 with an AdmissionReview, or 400 saying what is wrong with the body;
// facts (when given) says what it was about.
HttpAnswer answer_mutation(std::string_view body, const InjectionOptions &options, ReviewFacts *facts = nullptr);

}  // namespace liveupdate::host::webhook
