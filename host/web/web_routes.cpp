#include "host/web/web_routes.hpp"

#include <cctype>

#include "common/json_fields.hpp"
#include "host/web/assets.hpp"
#include "host/web/status_view.hpp"

namespace liveupdate::host::web {
namespace json = boost::json;

namespace {

constexpr std::string_view kTokenSlot = "{{LU_TOKEN}}";

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
    const json::value *e = answer.as_object().if_contains("error");
    return e != nullptr && e->is_string() ? std::string(e->as_string()) : "";
}

// A LiveUpdate name as a path segment: Kubernetes names (letters, digits, '-', '.', '_').
bool plain_name(std::string_view name) {
    if (name.empty() || name.size() > 253) return false;
    for (char c : name)
        if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '.' || c == '_')) return false;
    return true;
}

}  // namespace

WebResponse WebRoutes::handle(const WebRequest &request) const {
    WebResponse response;
    if (auto refused = refuse_request(guard_, request.host)) {
        response = error_response(403, *refused);
    } else {
        const std::string_view path = std::string_view(request.target).substr(0, request.target.find('?'));
        if (path.starts_with("/api/")) {
            response = api(request, path);
        } else if (request.method != "GET" && request.method != "HEAD") {
            response = error_response(405, "only GET serves the page");
        } else if (const Asset *asset = find_asset(path)) {
            response = WebResponse{200, std::string(asset->content_type), std::string(asset->body), {}, false};
            if (asset->path == "/index.html")
                if (const auto at = response.body.find(kTokenSlot); at != std::string::npos)
                    response.body.replace(at, kTokenSlot.size(), guard_.token);
        } else {
            response = error_response(404, "no such page: " + std::string(path));
        }
    }
    add_safety_headers(response);
    return response;
}

std::string WebRoutes::state_json() const {
    const json::value list = query_(json::object{{"op", "get"}, {"kind", "LiveUpdate"}});
    const json::value activity = query_(json::object{{"op", "activity"}});
    const json::value plugins = query_(json::object{{"op", "plugins"}});
    const json::value *summary = common::value_at(activity, {"activity"});
    const json::value *loaded = common::value_at(plugins, {"plugins"});
    return json::serialize(status_view(list, summary != nullptr && summary->is_object() ? summary->as_object() : json::object{},
                                       loaded != nullptr ? *loaded : json::value(json::array{})));
}

WebResponse WebRoutes::api(const WebRequest &request, std::string_view path) const {
    constexpr std::string_view kLiveUpdates = "/api/liveupdates/";
    if (request.method == "POST") {
        constexpr std::string_view kTrigger = "/trigger";
        if (!path.starts_with(kLiveUpdates) || !path.ends_with(kTrigger)) return error_response(405, "only GET here");
        const std::string_view name = path.substr(kLiveUpdates.size(), path.size() - kLiveUpdates.size() - kTrigger.size());
        if (auto refused = refuse_state_change(guard_, request.host, request.origin, request.token))
            return error_response(403, *refused);
        if (!plain_name(name)) return error_response(404, "no such LiveUpdate");
        const json::value answer = query_(json::object{{"op", "trigger"}, {"names", json::array{json::string(name)}}});
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
        std::string_view name = path.substr(kLiveUpdates.size());
        const bool log = name.ends_with("/log");
        if (log) name.remove_suffix(4);
        if (!plain_name(name)) return error_response(404, "no such LiveUpdate");
        const json::value answer =
            log ? query_(json::object{{"op", "activity"}, {"name", json::string(name)}})
                : query_(json::object{{"op", "describe"}, {"kind", "LiveUpdate"}, {"name", json::string(name)}});
        if (const std::string error = error_of(answer); !error.empty()) return error_response(404, error);
        return json_response(200, answer);
    }
    return error_response(404, "no such API: " + std::string(path));
}

}  // namespace liveupdate::host::web
