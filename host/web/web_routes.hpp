// The status page's routes, as a pure mapping from a request's facts to a
// response (the server does the I/O). Every route needs the daemon's secret
// (request_guard.hpp); a GET with ?token=SECRET sets the cookie and
// redirects to the same path without it (as Jupyter does), else 401.
//   GET  /, /app.js, /style.css        the page (the token embedded in /)
//   GET  /api/status                    the page's model (status_view)
//   GET  /api/liveupdates               what `get liveupdates -o json` prints
//   GET  /api/liveupdates/NAME          what `describe liveupdate NAME` reads
//   GET  /api/liveupdates/NAME/log      its recent log lines
//   GET  /api/plugins                   what `plugins -o json` prints
//   GET  /api/events                    Server-Sent Events: "state", "log"
//   POST /api/liveupdates/NAME/trigger  `lu-host trigger NAME` (Origin + token)
//   GET  /metrics                       Prometheus metrics (host/core/host_metrics.hpp)
#pragma once

#include <functional>
#include <map>
#include <string>

#include <boost/json.hpp>

#include "host/web/request_guard.hpp"

namespace liveupdate::host::web {

struct WebRequest {
    std::string method;         // "GET", "POST", ...
    std::string target;         // "/api/status?x=1"
    std::string host;           // the Host header
    std::string origin;         // the Origin header, "" when absent
    std::string token;          // the X-LU-Token header, "" when absent
    std::string cookie;         // the Cookie header, "" when absent
    std::string authorization;  // the Authorization header, "" when absent
};

struct WebResponse {
    unsigned status = 200;
    std::string content_type;
    std::string body;
    std::map<std::string, std::string> headers;
    bool event_stream = false;  // the server turns the connection into a stream of events
};

// The daemon's control requests ({"op": "get" | "describe" | "plugins" |
// "activity" | "trigger", ...}), answered as on the control socket.
using QueryFn = std::function<boost::json::value(const boost::json::object &request)>;

class WebRoutes {
public:
    WebRoutes(Guard guard, QueryFn query) : guard_(std::move(guard)), query_(std::move(query)) {}

    WebResponse handle(const WebRequest &request) const;
    // The body of /api/status, also sent as each "state" event.
    std::string state_json() const;
    const Guard &guard() const { return guard_; }

private:
    WebResponse log_in(const WebRequest &request, std::string_view path, const std::string &secret) const;
    WebResponse serve(const WebRequest &request, std::string_view path, Credential credential) const;
    WebResponse api(const WebRequest &request, std::string_view path, Credential credential) const;

    Guard guard_;
    QueryFn query_;
};

}  // namespace liveupdate::host::web
