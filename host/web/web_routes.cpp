#include "host/web/web_routes.hpp"

#include <optional>

#include "common/json_fields.hpp"
#include "common/object_name.hpp"
#include "host/core/host_metrics.hpp"
#include "host/web/assets.hpp"
#include "host/web/status_view.hpp"

namespace liveupdate::host::web {
namespace json = boost::json;

namespace {

constexpr std::string_view kTokenPlaceholder = "{{LU_TOKEN}}";

// Scripts, styles and requests only from the page's own origin; no framing
// (a framed page could be clicked through).
void add_safety_headers(WebResponse &r) {
    r.headers["Content-Security-Policy"] =
        "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self'; "
        "frame-ancestors 'none'; base-uri 'none'; form-action 'none'";
    r.headers["X-Content-Type-Options"] = "nosniff";
    r.headers["X-Frame-Options"] = "DENY";
    r.headers["Referrer-Policy"] = "no-referrer";
    r.headers["Cache-Control"] = "no-store";
}

WebResponse json_response(unsigned status, const json::value &body) {
    return WebResponse{status, "application/json", json::serialize(body) + "\n", {}, false};
}

WebResponse error_response(unsigned status, const std::string &message) {
    return json_response(status, json::object{{"error", message}});
}

std::string error_of(const json::value &answer) {
    if (!answer.is_object()) return "";
    return common::string_field(answer.as_object(), "error", "answer");
}

int hex_digit(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

// A LiveUpdate name from its path segment (percent-decoded, as the page's
// encodeURIComponent wrote it), if it is an object name at all.
std::optional<std::string> name_of_segment(std::string_view segment) {
    std::string name;
    for (std::size_t i = 0; i < segment.size(); ++i) {
        if (segment[i] != '%') {
            name += segment[i];
            continue;
        }
        const int hi = i + 2 < segment.size() ? hex_digit(segment[i + 1]) : -1;
        const int lo = hi >= 0 ? hex_digit(segment[i + 2]) : -1;
        if (lo < 0) return std::nullopt;
        name += static_cast<char>(hi * 16 + lo);
        i += 2;
    }
    if (common::object_name_problem(name)) return std::nullopt;
    return name;
}

WebResponse unauthorized(std::string_view path) {
    WebResponse r = path.starts_with("/api/")
                        ? error_response(401,
                                         "no credential: an Authorization: Bearer header with the secret of the "
                                         "URL lu-host up printed, or the cookie that URL sets")
                        : WebResponse{401,
                                      "text/plain; charset=utf-8",
                                      "This status page opens from the address lu-host up printed at start-up "
                                      "(up: status page http://...?token=...).\n",
                                      {},
                                      false};
    r.headers["WWW-Authenticate"] = "Bearer realm=\"lu-host\"";
    return r;
}

}  // namespace

WebResponse WebRoutes::handle(const WebRequest &request) const {
    const std::string_view path = std::string_view(request.target).substr(0, request.target.find('?'));
    WebResponse response;
    if (auto refused = refuse_request(guard_, request.host)) {
        response = error_response(403, *refused);
    } else if (const auto secret = query_parameter(request.target, "token")) {
        response = log_in(request, path, *secret);
    } else if (const Credential c = credential_of(guard_, request.cookie, request.authorization);
               c != Credential::none) {
        response = serve(request, path, c);
    } else {
        response = unauthorized(path);
    }
    add_safety_headers(response);
    return response;
}

WebResponse WebRoutes::log_in(const WebRequest &request, std::string_view path, const std::string &secret) const {
    if (request.method != "GET" && request.method != "HEAD") return error_response(405, "?token= only on a GET");
    if (!same_secret(secret, guard_.secret)) return unauthorized(path);
    WebResponse r{303, "text/plain; charset=utf-8", "", {}, false};
    // The clean URL, on this server: browsers read "//host" and "/\host" as another one.
    const bool here = path.starts_with("/") && !path.starts_with("//") && path.find('\\') == std::string_view::npos;
    r.headers["Location"] = here ? std::string(path) : "/";
    r.headers["Set-Cookie"] = guard_.cookie_name + "=" + guard_.secret + "; Path=/; HttpOnly; SameSite=Strict";
    return r;
}

WebResponse WebRoutes::serve(const WebRequest &request, std::string_view path, Credential credential) const {
    if (path.starts_with("/api/")) return api(request, path, credential);
    if (request.method != "GET" && request.method != "HEAD") return error_response(405, "only GET serves the page");
    if (path == "/metrics")
        return WebResponse{200, std::string(metrics::kContentType), metrics::daemon_metrics_text(), {}, false};
    const Asset *asset = find_asset(path);
    if (asset == nullptr) return error_response(404, "no such page: " + std::string(path));
    WebResponse r{200, std::string(asset->content_type), std::string(asset->body), {}, false};
    if (asset->path == "/index.html")
        if (const auto at = r.body.find(kTokenPlaceholder); at != std::string::npos)
            r.body.replace(at, kTokenPlaceholder.size(), guard_.token);
    return r;
}

std::string WebRoutes::state_json() const {
    const json::value list = query_(json::object{{"op", "get"}, {"kind", "LiveUpdate"}});
    const json::value activity = query_(json::object{{"op", "activity"}});
    const json::value plugins = query_(json::object{{"op", "plugins"}});
    const json::value *summary = common::member(activity, {"activity"});
    const json::value *loaded = common::member(plugins, {"plugins"});
    return json::serialize(
        status_view(list, summary != nullptr && summary->is_object() ? summary->as_object() : json::object{},
                    loaded != nullptr ? *loaded : json::value(json::array{})));
}

WebResponse WebRoutes::api(const WebRequest &request, std::string_view path, Credential credential) const {
    constexpr std::string_view kLiveUpdates = "/api/liveupdates/";
    if (request.method == "POST") {
        constexpr std::string_view kTrigger = "/trigger";
        if (!path.starts_with(kLiveUpdates) || !path.ends_with(kTrigger)) return error_response(405, "only GET here");
        const std::string_view segment =
            path.substr(kLiveUpdates.size(), path.size() - kLiveUpdates.size() - kTrigger.size());
        if (auto refused = refuse_state_change(guard_, request.host, request.origin, request.token, credential))
            return error_response(403, *refused);
        const std::optional<std::string> name = name_of_segment(segment);
        if (!name) return error_response(404, "no such LiveUpdate");
        const json::value answer = query_(json::object{{"op", "trigger"}, {"names", json::array{json::string(*name)}}});
        if (const std::string error = error_of(answer); !error.empty()) return error_response(400, error);
        return json_response(200, answer);
    }
    if (request.method != "GET") return error_response(405, "only GET and POST here");
    if (path == "/api/status") return WebResponse{200, "application/json", state_json() + "\n", {}, false};
    if (path == "/api/events") return WebResponse{200, "text/event-stream", "", {}, true};
    if (path == "/api/plugins") return json_response(200, query_(json::object{{"op", "plugins"}}));
    if (path == "/api/liveupdates" || path == "/api/liveupdates/")
        return json_response(200, query_(json::object{{"op", "get"}, {"kind", "LiveUpdate"}}));
    if (path.starts_with(kLiveUpdates)) {
        std::string_view segment = path.substr(kLiveUpdates.size());
        const bool log = segment.ends_with("/log");
        if (log) segment.remove_suffix(4);
        const std::optional<std::string> name = name_of_segment(segment);
        if (!name) return error_response(404, "no such LiveUpdate");
        const json::value answer =
            log ? query_(json::object{{"op", "activity"}, {"name", json::string(*name)}})
                : query_(json::object{{"op", "describe"}, {"kind", "LiveUpdate"}, {"name", json::string(*name)}});
        if (const std::string error = error_of(answer); !error.empty()) return error_response(404, error);
        return json_response(200, answer);
    }
    return error_response(404, "no such API: " + std::string(path));
}

}  // namespace liveupdate::host::web
