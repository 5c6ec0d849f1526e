// admission.k8s.io/v1 AdmissionReview in, AdmissionReview out: the webhook's
// rules as pure functions. CREATE and UPDATE of the cluster kinds
// (host/cluster/cluster_kinds.hpp) are judged by the cluster path rule
// against a placeholder root, then by the plugin's admission; the answer
// keeps the request's uid and is the same for dryRun requests.
#pragma once

#include <functional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include <boost/json.hpp>

namespace liveupdate::host::webhook {

// The project folder's stand-in while judging; messages show paths under it.
inline constexpr std::string_view kPlaceholderRoot = "/lu-project";

// A body that is not an AdmissionReview this webhook reads: an HTTP 400.
class BadReview : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

struct ReviewRequest {
    std::string uid;
    std::string operation;  // CREATE, UPDATE, DELETE, CONNECT
    std::string group, version, kind;
    std::string name;
    std::string namespace_name;  // request.namespace; "" for cluster-scoped objects
    bool dry_run = false;
    boost::json::value object;  // request.object; null for DELETE
};

// Throws BadReview naming the field that is missing or of the wrong type.
ReviewRequest parse_review(std::string_view body);

struct Cause {
    std::string field;
    std::string message;
};

struct Verdict {
    bool allowed = true;
    std::string message;  // why not, for humans: every cause joined
    std::vector<Cause> causes;
    std::vector<std::string> warnings;
};

// The plugin's admission of an object (Engine::validate's document:
// {"accepted", "errors": [{"field", "message"}], "message"}). May throw.
using Validator = std::function<boost::json::object(std::string_view object_json)>;

Verdict judge(const ReviewRequest &request, const Validator &validate, std::string_view root = kPlaceholderRoot);

// The AdmissionReview answering request.
boost::json::object review_response(const ReviewRequest &request, const Verdict &verdict);

struct HttpAnswer {
    unsigned status = 200;
    std::string content_type;
    std::string body;
};

// 400 saying what is wrong with the body.
HttpAnswer bad_review_answer(const BadReview &e);

// What an answer was about, for the metrics: the request's kind and
// operation ("" when the body is not a review this webhook reads) and the
// verdict: "allowed", "denied", "patched" (allowed with a patch) or "invalid" (a 400).
struct ReviewFacts {
    std::string kind, operation;
    std::string verdict;
};

// POST /validate end to end: 200 with an AdmissionReview, or 400 saying what
// is wrong with the body; facts (when given) says what it was about.
HttpAnswer answer_review(std::string_view body, const Validator &validate, std::string_view root = kPlaceholderRoot,
                         ReviewFacts *facts = nullptr);

}  // namespace liveupdate::host::webhook
