// The status page's HTTP server (Boost.Beast): serves WebRoutes and streams
// Server-Sent Events. Runs on its own threads; each connection has its own
// strand, deadlines and bounded buffers, so a slow or stalled client costs
// only its own connection and never blocks the daemon: the daemon's calls
// here (state_changed, log_line) only post work. A request must arrive whole
// within seconds, and only a few connections may wait for theirs: the oldest
// waiting goes first, so requests left half-sent never keep out whole ones.
#pragma once

#include <memory>
#include <string>

#include "host/web/web_routes.hpp"

namespace liveupdate::host::web {

class WebServerImpl;

struct WebOptions {
    std::string address = "127.0.0.1";
    unsigned short port = 10351;         // Tilt's web view is on 10350
    bool fall_back_to_any_port = false;  // when port is taken, take a free one
};

class WebServer {
public:
    // Binds and starts serving; throws std::runtime_error saying why it cannot
    // (address in use, bad address). query answers as the control socket does.
    WebServer(const WebOptions &options, QueryFn query);
    WebServer(const WebServer &) = delete;
    WebServer &operator=(const WebServer &) = delete;
    ~WebServer();  // closes every connection and joins its threads

    // What the daemon prints at start-up, to its own output only: opening it
    // logs in (http://127.0.0.1:10351/?token=SECRET).
    std::string url() const;
    std::string address() const;        // http://127.0.0.1:10351/
    const std::string &secret() const;  // for `Authorization: Bearer SECRET`
    unsigned short port() const;

    // Thread-safe and non-blocking. The state is sent to every open page,
    // at most every 50 ms; a log line goes out as it comes.
    void state_changed();
    void log_line(const std::string &live_update, const boost::json::object &line);

private:
    std::unique_ptr<WebServerImpl> impl_;
};

}  // namespace liveupdate::host::web
