// Failures talking to the Docker Engine, classified so callers can word them
// (the message already says what, where and why).
#pragma once

#include <stdexcept>
#include <string>

namespace liveupdate::docker_engine {

enum class EngineFailure {
    unreachable,        // nothing listens on the endpoint (daemon not running)
    permission_denied,  // the socket exists but we may not open it
    timeout,            // the daemon did not answer in time
    not_found,          // HTTP 404: e.g. the container is gone
    conflict,           // HTTP 409: e.g. the container is not running
    http,               // any other HTTP error status
    protocol            // an answer we could not understand, or a broken stream
};

class EngineError : public std::runtime_error {
public:
    EngineError(EngineFailure failure, const std::string &message, int http_status = 0)
        : std::runtime_error(message), failure_(failure), http_status_(http_status) {}
    EngineFailure failure() const noexcept { return failure_; }
    int http_status() const noexcept { return http_status_; }

private:
    EngineFailure failure_;
    int http_status_;
};

}  // namespace liveupdate::docker_engine
