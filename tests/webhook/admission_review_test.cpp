// The AdmissionReview mapping: review JSON in, response JSON out, judged by
// the plugin's own admission rules (plugin/core, as its validate runs them).
#include <boost/test/unit_test.hpp>

#include <string>

#include "host/webhook/admission_review.hpp"
#include "host/webhook/webhook_routes.hpp"
#include "plugin/core/admission.hpp"

using namespace liveupdate::host::webhook;
namespace json = boost::json;

namespace {

json::object plugin_admission(std::string_view object_json) {
    const liveupdate::AdmissionResult r = liveupdate::admit(object_json);
    json::array errors;
    for (const auto &e : r.errors) errors.push_back(json::object{{"field", e.field}, {"message", e.message}});
    return json::object{{"accepted", r.accepted},      {"kind", r.kind},       {"name", r.name},
                        {"errors", std::move(errors)}, {"message", r.message}, {"due", json::array{}}};
}

const Validator kPlugin = plugin_admission;

std::string review(const std::string &object, const std::string &operation = "CREATE", bool dry_run = false,
                   const std::string &kind = "LiveUpdate") {
    return R"({"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":"705ab4f5-6393-11e8-b7cc-42010a800002",
        "kind":{"group":"tilt.dev","version":"v1alpha1","kind":")" +
           kind + R"("},"resource":{"group":"tilt.dev","version":"v1alpha1","resource":"liveupdates"},
        "name":"web","operation":")" +
           operation + R"(","dryRun":)" + (dry_run ? "true" : "false") + R"(,"object":)" + object + "}}";
}

std::string live_update(const std::string &spec) {
    return R"({"apiVersion":"tilt.dev/v1alpha1","kind":"LiveUpdate","metadata":{"name":"web"},"spec":)" + spec + "}";
}

const std::string kValidSpec =
    R"({"basePath":".","selector":{"kubernetes":{"discoveryName":"web","containerName":"app"}},
        "syncs":[{"localPath":"src","containerPath":"/app"}]})";

json::object response_of(const HttpAnswer &answer) {
    BOOST_REQUIRE_EQUAL(answer.status, 200u);
    BOOST_TEST(answer.content_type == "application/json");
    const json::value v = json::parse(answer.body);
    BOOST_TEST(v.at("apiVersion").as_string() == "admission.k8s.io/v1");
    BOOST_TEST(v.at("kind").as_string() == "AdmissionReview");
    return v.at("response").as_object();
}

std::vector<std::string> cause_fields(const json::object &response) {
    std::vector<std::string> out;
    for (const auto &c : response.at("status").at("details").at("causes").as_array())
        out.emplace_back(c.at("field").as_string());
    return out;
}

bool contains(const std::vector<std::string> &items, const std::string &item) {
    return std::find(items.begin(), items.end(), item) != items.end();
}

}  // namespace

BOOST_AUTO_TEST_SUITE(admission_review)

BOOST_AUTO_TEST_CASE(a_valid_live_update_is_allowed_with_its_uid) {
    const json::object r = response_of(answer_review(review(live_update(kValidSpec)), kPlugin));
    BOOST_TEST(r.at("allowed").as_bool());
    BOOST_TEST(r.at("uid").as_string() == "705ab4f5-6393-11e8-b7cc-42010a800002");
    BOOST_TEST(!r.contains("status"));
    BOOST_TEST(!r.contains("warnings"));
}

BOOST_AUTO_TEST_CASE(a_relative_base_path_is_what_the_plugin_judges_once_resolved) {
    // Unresolved, the plugin itself refuses "." (its basePath must be absolute).
    BOOST_TEST(!plugin_admission(live_update(kValidSpec)).at("accepted").as_bool());
    BOOST_TEST(response_of(answer_review(review(live_update(kValidSpec)), kPlugin)).at("allowed").as_bool());
}

BOOST_AUTO_TEST_CASE(every_refused_field_is_a_cause_and_in_the_message) {
    const json::object r = response_of(answer_review(
        review(live_update(
            R"({"basePath":"/home/dev/app","selector":{"kubernetes":{"discoveryName":"web","image":"a","containerName":"b"}},
            "syncs":[{"localPath":"src","containerPath":"app"},{"localPath":"src","containerPath":"/app/../etc"}]})")),
        kPlugin));
    BOOST_TEST(!r.at("allowed").as_bool());
    const json::object &status = r.at("status").as_object();
    BOOST_TEST(status.at("code").as_int64() == 422);
    BOOST_TEST(status.at("reason").as_string() == "Invalid");
    BOOST_TEST(status.at("details").at("kind").as_string() == "LiveUpdate");
    BOOST_TEST(status.at("details").at("name").as_string() == "web");
    BOOST_TEST(status.at("details").at("group").as_string() == "tilt.dev");
    const std::vector<std::string> fields = cause_fields(r);
    for (const char *field : {"spec.basePath", "spec.syncs[0]", "spec.syncs[1].containerPath",
                              "spec.selector.kubernetes.image", "spec.selector.kubernetes.containerName"}) {
        BOOST_TEST(contains(fields, field), field);
        BOOST_TEST(std::string(status.at("message").as_string()).find(field) != std::string::npos, field);
    }
    BOOST_TEST(std::string(status.at("message").as_string()).rfind("LiveUpdate \"web\" is invalid: ", 0) == 0u);
}

BOOST_AUTO_TEST_CASE(cause_reasons_follow_the_error_type) {
    const json::object r = response_of(
        answer_review(review(live_update(R"({"basePath":".","selector":{"kubernetes":{"image":"a","containerName":"b"}},
            "syncs":[{"localPath":"src","containerPath":"app"}]})")),
                      kPlugin));
    std::map<std::string, std::string> reasons;
    for (const auto &c : r.at("status").at("details").at("causes").as_array())
        reasons[std::string(c.at("field").as_string())] = c.at("reason").as_string();
    BOOST_TEST(reasons["spec.selector.kubernetes.discoveryName"] == "FieldValueRequired");
    BOOST_TEST(reasons["spec.selector.kubernetes.image"] == "FieldValueForbidden");
    BOOST_TEST(reasons["spec.syncs[0]"] == "FieldValueInvalid");
}

BOOST_AUTO_TEST_CASE(a_base_path_refused_by_the_path_rule_is_reported_once) {
    const json::object r = response_of(answer_review(
        review(live_update(R"({"basePath":"..","selector":{"kubernetes":{"discoveryName":"w","image":"i"}},
            "syncs":[{"localPath":"src","containerPath":"/app"}]})")),
        kPlugin));
    BOOST_TEST(cause_fields(r) == std::vector<std::string>{"spec.basePath"});
}

BOOST_AUTO_TEST_CASE(a_wrong_field_type_names_the_field) {
    const json::object r = response_of(answer_review(
        review(live_update(R"({"basePath":".","syncs":[{"localPath":"src","containerPath":5}]})")), kPlugin));
    BOOST_TEST(!r.at("allowed").as_bool());
    BOOST_TEST(cause_fields(r) == std::vector<std::string>{"spec.syncs[0].containerPath"});
}

BOOST_AUTO_TEST_CASE(an_update_is_judged_like_a_create) {
    const std::string broken = live_update(R"({"basePath":".","syncs":[{"localPath":"/src","containerPath":"/app"}]})");
    const json::object r = response_of(answer_review(review(broken, "UPDATE"), kPlugin));
    BOOST_TEST(!r.at("allowed").as_bool());
    BOOST_TEST(cause_fields(r) == std::vector<std::string>{"spec.syncs[0].localPath"});
}

BOOST_AUTO_TEST_CASE(dry_run_gets_the_same_answer) {
    const std::string object = live_update(R"({"basePath":"/abs","syncs":[{"localPath":"s","containerPath":"/a"}]})");
    BOOST_TEST(answer_review(review(object, "CREATE", true), kPlugin).body ==
               answer_review(review(object, "CREATE", false), kPlugin).body);
}

BOOST_AUTO_TEST_CASE(admission_warnings_are_warnings) {
    const json::object r = response_of(answer_review(
        review(live_update(R"({"basePath":"app","selector":{"kubernetes":{"discoveryName":"w","image":"i"}},
            "syncs":[{"localPath":"../shared","containerPath":"/shared"}]})")),
        kPlugin));
    BOOST_TEST(r.at("allowed").as_bool());
    BOOST_REQUIRE_EQUAL(r.at("warnings").as_array().size(), 1u);
    BOOST_TEST(std::string(r.at("warnings").at(0).as_string()).find("spec.syncs[0].localPath") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(delete_and_other_kinds_are_not_judged) {
    int calls = 0;
    const Validator counting = [&](std::string_view json_text) {
        ++calls;
        return plugin_admission(json_text);
    };
    const std::string bad = live_update(R"({"basePath":"/abs"})");
    BOOST_TEST(response_of(answer_review(review("null", "DELETE"), counting)).at("allowed").as_bool());
    BOOST_TEST(response_of(answer_review(review(bad, "CREATE", false, "Cmd"), counting)).at("allowed").as_bool());
    BOOST_TEST(calls == 0);
    BOOST_TEST(!response_of(answer_review(review(bad), counting)).at("allowed").as_bool());
    BOOST_TEST(calls == 1);
}

BOOST_AUTO_TEST_CASE(file_watch_paths_are_judged) {
    const json::object r = response_of(
        answer_review(review(R"({"apiVersion":"tilt.dev/v1alpha1","kind":"FileWatch","metadata":{"name":"fw"},
                   "spec":{"watchedPaths":["src","/etc"]}})",
                             "CREATE", false, "FileWatch"),
                      kPlugin));
    BOOST_TEST(!r.at("allowed").as_bool());
    BOOST_TEST(cause_fields(r) == std::vector<std::string>{"spec.watchedPaths[1]"});
}

BOOST_AUTO_TEST_CASE(a_plugin_that_cannot_judge_refuses_without_causes) {
    const Validator failing = [](std::string_view) -> json::object { throw std::runtime_error("validate failed"); };
    const json::object r = response_of(answer_review(review(live_update(kValidSpec)), failing));
    BOOST_TEST(!r.at("allowed").as_bool());
    BOOST_TEST(r.at("status").at("code").as_int64() == 403);
    BOOST_TEST(std::string(r.at("status").at("message").as_string()).find("validate failed") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(malformed_bodies_are_400_naming_what_is_wrong) {
    const std::vector<std::pair<std::string, std::string>> cases{
        {"", "not JSON"},
        {"{\"apiVersion\":", "not JSON"},
        {"[1,2]", "not a JSON object"},
        {R"({"apiVersion":"admission.k8s.io/v1beta1","kind":"AdmissionReview","request":{}})", "admission.k8s.io/v1"},
        {R"({"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview"})", "request"},
        {R"({"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":7}})", "request.uid"},
        {R"({"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":"u","operation":"CREATE"}})",
         "request.kind"},
        {review("\"text\""), "request.object"},
        {review(live_update(kValidSpec))
             .replace(review(live_update(kValidSpec)).find("\"dryRun\":false"), 14, "\"dryRun\":\"no\""),
         "request.dryRun"},
    };
    for (const auto &[body, names] : cases) {
        const HttpAnswer answer = answer_review(body, kPlugin);
        BOOST_TEST(answer.status == 400u, body);
        BOOST_TEST(answer.body.find(names) != std::string::npos, body + " -> " + answer.body);
    }
}

BOOST_AUTO_TEST_CASE(routes) {
    BOOST_TEST(route({"GET", "/healthz", ""}, kPlugin, {}).status == 200u);
    BOOST_TEST(route({"GET", "/validate", ""}, kPlugin, {}).status == 405u);
    BOOST_TEST(route({"POST", "/other", ""}, kPlugin, {}).status == 404u);
    const std::string body = review(live_update(kValidSpec));
    BOOST_TEST(route({"POST", "/validate?timeout=5s", body}, kPlugin, {}).status == 200u);
}

BOOST_AUTO_TEST_SUITE_END()
