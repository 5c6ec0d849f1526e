// The routes over a fake daemon: the JSON API is what the control socket
// answers; every route needs the secret; the trigger needs the page's Origin
// and token; assets by name.
#include <boost/test/unit_test.hpp>

#include <vector>

#include "host/web/web_routes.hpp"

using namespace liveupdate::host::web;
namespace json = boost::json;

namespace {

const std::string kToken = "0123456789abcdef0123456789abcdef";
const std::string kHost = "127.0.0.1:10351";
const std::string kOrigin = "http://127.0.0.1:10351";
const std::string kSecret = "fedcba9876543210fedcba9876543210";
const std::string kCookie = "lu-host-10351=" + kSecret;

struct FakeDaemon {
    std::vector<json::object> requests;
    json::value list = json::parse(R"({"kind": "List", "items": [{"kind": "LiveUpdate", "metadata": {"name": "hello",
        "annotations": {"tilt.dev/resource": "hello", "tilt.dev/update-mode": "manual"}},
        "status": {"containers": [{"containerName": "hello", "containerID": "1"}]}}], "rejected": []})");

    json::value answer(const json::object &r) {
        requests.push_back(r);
        const std::string op(r.at("op").as_string());
        if (op == "get") return list;
        if (op == "plugins")
            return json::parse(
                R"({"plugins": [{"kind": "liveupdate", "name": "liveupdate", "version": "1.2.0", "reloads": 3}]})");
        if (op == "activity")
            return r.contains("name") ? json::value(json::object{{"name", r.at("name")}, {"lines", json::array{}}})
                                      : json::value(json::object{{"activity", json::object{}}});
        const std::string name = r.contains("name")    ? std::string(r.at("name").as_string())
                                 : r.contains("names") ? std::string(r.at("names").as_array()[0].as_string())
                                                       : "";
        if (name != "hello" && name != "web:image:gcr.io_app")
            return json::object{{"error", "LiveUpdate \"" + name + "\" not found"}};
        if (op == "describe") return json::object{{"object", list.at("items").as_array()[0]}};
        if (op == "trigger") return json::object{{"triggered", json::array{json::object{{"name", name}}}}};
        return json::object{{"error", "unknown op"}};
    }
};

struct Fixture {
    FakeDaemon daemon;
    WebRoutes routes{Guard::for_address("127.0.0.1", 10351, kToken, kSecret),
                     [this](const json::object &r) { return daemon.answer(r); }};

    WebResponse get(const std::string &target, const std::string &host = kHost, const std::string &cookie = kCookie) {
        return routes.handle(WebRequest{"GET", target, host, "", "", cookie, ""});
    }
    WebResponse post(const std::string &target, const std::string &origin, const std::string &token,
                     const std::string &cookie = kCookie, const std::string &authorization = "") {
        return routes.handle(WebRequest{"POST", target, kHost, origin, token, cookie, authorization});
    }
    bool triggered() const {
        for (const auto &r : daemon.requests)
            if (r.at("op").as_string() == "trigger") return true;
        return false;
    }
};

}  // namespace

BOOST_FIXTURE_TEST_SUITE(web_routes, Fixture)

BOOST_AUTO_TEST_CASE(the_api_is_what_get_prints) {
    const WebResponse r = get("/api/liveupdates");
    BOOST_TEST(r.status == 200u);
    BOOST_TEST(r.content_type == "application/json");
    BOOST_TEST(json::parse(r.body) == daemon.list);
    BOOST_TEST(daemon.requests.back().at("kind").as_string() == "LiveUpdate");
}

BOOST_AUTO_TEST_CASE(describe_plugins_log_and_status) {
    BOOST_TEST(json::parse(get("/api/liveupdates/hello").body).at("object").at("metadata").at("name").as_string() ==
               "hello");
    BOOST_TEST(get("/api/liveupdates/nope").status == 404u);
    BOOST_TEST(json::parse(get("/api/plugins").body).at("plugins").as_array().size() == 1u);
    BOOST_TEST(get("/api/liveupdates/hello/log").status == 200u);
    const json::value status = json::parse(get("/api/status").body);
    BOOST_TEST(status.at("liveUpdates").as_array()[0].at("state").as_string() == "in-sync");
    BOOST_TEST(status.at("liveUpdates").as_array()[0].at("canTrigger").as_bool());
    BOOST_TEST(status.at("plugins").as_array()[0].at("reloads").as_int64() == 3);
    BOOST_TEST(get("/api/nothing").status == 404u);
    BOOST_TEST(get("/api/liveupdates/a%2Fb").status == 404u);
}

BOOST_AUTO_TEST_CASE(the_page_embeds_the_token_and_forbids_framing) {
    const WebResponse r = get("/");
    BOOST_TEST(r.status == 200u);
    BOOST_TEST(r.body.find(R"(<meta name="lu-token" content=")" + kToken + "\">") != std::string::npos);
    BOOST_TEST(r.headers.at("X-Frame-Options") == "DENY");
    BOOST_TEST(r.headers.at("Content-Security-Policy").find("frame-ancestors 'none'") != std::string::npos);
    BOOST_TEST(get("/../../etc/passwd").status == 404u);
    BOOST_TEST(get("/%2e%2e/%2e%2e/etc/passwd").status == 404u);
    BOOST_TEST(routes.handle(WebRequest{"DELETE", "/", kHost, "", "", kCookie, ""}).status == 405u);
}

BOOST_AUTO_TEST_CASE(another_host_name_gets_nothing) {
    BOOST_TEST(get("/", "evil.example:10351").status == 403u);
    BOOST_TEST(get("/api/liveupdates", "evil.example:10351").status == 403u);
    BOOST_TEST(daemon.requests.empty());
}

BOOST_AUTO_TEST_CASE(the_page_triggers) {
    const WebResponse r = post("/api/liveupdates/hello/trigger", kOrigin, kToken);
    BOOST_TEST(r.status == 200u);
    BOOST_TEST(triggered());
    BOOST_TEST(post("/api/liveupdates/nope/trigger", kOrigin, kToken).status == 400u);
}

BOOST_AUTO_TEST_CASE(a_cross_origin_trigger_is_refused) {
    BOOST_TEST(post("/api/liveupdates/hello/trigger", "http://evil.example", kToken).status == 403u);
    BOOST_TEST(post("/api/liveupdates/hello/trigger", "", kToken).status == 403u);
    BOOST_TEST(post("/api/liveupdates/hello/trigger", kOrigin, "").status == 403u);
    BOOST_TEST(post("/api/liveupdates/hello/trigger", kOrigin, "ffffffffffffffffffffffffffffffff").status == 403u);
    BOOST_TEST(!triggered());
}

BOOST_AUTO_TEST_CASE(events_become_a_stream) {
    BOOST_TEST(get("/api/events").event_stream);
    BOOST_TEST(!get("/api/events", "evil.example:1").event_stream);
    BOOST_TEST(!get("/api/events", kHost, "").event_stream);
}

BOOST_AUTO_TEST_CASE(without_the_secret_every_route_is_refused) {
    for (const char *target :
         {"/", "/index.html", "/app.js", "/style.css", "/nothing", "/api/status", "/api/events", "/api/plugins",
          "/api/liveupdates", "/api/liveupdates/hello", "/api/liveupdates/hello/log", "/api/nothing"}) {
        for (const std::string &cookie : {std::string(), "lu-host-10351=" + kToken, "lu-host-10352=" + kSecret}) {
            const WebResponse r = get(target, kHost, cookie);
            BOOST_TEST(r.status == 401u, target);
            BOOST_TEST(r.headers.at("WWW-Authenticate").starts_with("Bearer"));
            BOOST_TEST(r.body.find(kToken) == std::string::npos);
        }
    }
    BOOST_TEST(post("/api/liveupdates/hello/trigger", kOrigin, kToken, "").status == 401u);
    BOOST_TEST(get("/?token=" + kToken, kHost, "").status == 401u);
    BOOST_TEST(!triggered());
    BOOST_TEST(daemon.requests.empty());
}

BOOST_AUTO_TEST_CASE(the_printed_url_sets_the_cookie_and_redirects_to_the_clean_url) {
    const WebResponse r = get("/?token=" + kSecret, kHost, "");
    BOOST_TEST(r.status == 303u);
    BOOST_TEST(r.headers.at("Location") == "/");
    BOOST_TEST(r.headers.at("Set-Cookie") == kCookie + "; Path=/; HttpOnly; SameSite=Strict");
    BOOST_TEST(get("/api/status?token=" + kSecret, kHost, "").headers.at("Location") == "/api/status");
    BOOST_TEST(get("//evil.example/?token=" + kSecret, kHost, "").headers.at("Location") == "/");
    BOOST_TEST(get("/\\evil.example/?token=" + kSecret, kHost, "").headers.at("Location") == "/");
    BOOST_TEST(routes
                   .handle(WebRequest{"POST", "/api/liveupdates/hello/trigger?token=" + kSecret, kHost, kOrigin, kToken,
                                      "", ""})
                   .status == 405u);
    BOOST_TEST(!triggered());
}

BOOST_AUTO_TEST_CASE(a_script_uses_a_bearer_header) {
    const std::string bearer = "Bearer " + kSecret;
    BOOST_TEST(routes.handle(WebRequest{"GET", "/api/liveupdates", kHost, "", "", "", bearer}).status == 200u);
    BOOST_TEST(post("/api/liveupdates/hello/trigger", "", "", "", bearer).status == 200u);
    BOOST_TEST(triggered());
    BOOST_TEST(post("/api/liveupdates/hello/trigger", "http://evil.example", "", "", bearer).status == 403u);
    BOOST_TEST(post("/api/liveupdates/hello/trigger", "", "", "", "Bearer " + kToken).status == 401u);
}

// Tilt's names hold ':' (encodeURIComponent writes %3A); no segment becomes another path.
BOOST_AUTO_TEST_CASE(names_in_paths_are_percent_decoded_object_names) {
    BOOST_TEST(get("/api/liveupdates/web%3Aimage%3Agcr.io_app/log").status == 200u);
    BOOST_TEST(daemon.requests.back().at("name").as_string() == "web:image:gcr.io_app");
    BOOST_TEST(get("/api/liveupdates/web:image:gcr.io_app").status == 200u);
    BOOST_TEST(post("/api/liveupdates/web%3Aimage%3Agcr.io_app/trigger", kOrigin, kToken).status == 200u);
    const std::size_t asked = daemon.requests.size();
    for (const char *bad :
         {"/api/liveupdates/a%2Fb", "/api/liveupdates/a/b", "/api/liveupdates/%2E%2E", "/api/liveupdates/%",
          "/api/liveupdates/%4", "/api/liveupdates/%zz", "/api/liveupdates/a%25b/log"})
        BOOST_TEST(get(bad).status == 404u, bad);
    BOOST_TEST(daemon.requests.size() == asked);
}

BOOST_AUTO_TEST_SUITE_END()
