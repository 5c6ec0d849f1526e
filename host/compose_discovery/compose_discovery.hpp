// Docker Compose discovery: follows the containers of DockerComposeService
// objects on a real Docker engine and reports their status whenever it
// changes. It lists containers by the labels Compose sets
// (com.docker.compose.project / .service) and keeps current from the engine's
// event stream, so a restarted or recreated container is seen at once.
//
//   ComposeDiscovery discovery({}, [&](const std::string &name, const json::object &status) {
//       ... write status into DockerComposeService `name` ...
//   }, [&](std::string_view warning) { ... });
//   discovery.watch("web", {"myproject", "web"});
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <thread>

#include <boost/json.hpp>

#include "host/compose_discovery/compose_status.hpp"
#include "host/core/status_board.hpp"

namespace liveupdate::docker_engine {
class EngineClient;
}  // namespace liveupdate::docker_engine
namespace liveupdate::common {
class StreamCancel;
}  // namespace liveupdate::common

namespace liveupdate::host::compose_discovery {

class ComposeDiscovery {
public:
    struct Options {
        std::string docker_host;                   // DOCKER_HOST syntax; empty: $DOCKER_HOST, else the default socket
        std::string api_version;                   // empty: negotiated
        std::chrono::milliseconds timeout{10000};  // each API call
        std::chrono::milliseconds retry_delay{1000};  // after the engine went away
    };
    // Called from the discovery's own thread, never with its lock held.
    using StatusFn = std::function<void(const std::string &object_name, const boost::json::object &status)>;
    using WarningFn = std::function<void(std::string_view)>;

    // Throws std::invalid_argument when options.docker_host cannot be parsed; an
    // unusable $DOCKER_HOST is reported through on_warning instead.
    ComposeDiscovery(Options options, StatusFn on_status, WarningFn on_warning);
    ~ComposeDiscovery();
    ComposeDiscovery(const ComposeDiscovery &) = delete;
    ComposeDiscovery &operator=(const ComposeDiscovery &) = delete;

    // Follows the service for that DockerComposeService; its status is reported
    // soon, then on every change. Watching again with another service switches.
    void watch(const std::string &object_name, ComposeServiceRef service);
    void unwatch(const std::string &object_name);
    // The last status reported for the object.
    std::optional<boost::json::object> status(const std::string &object_name) const;

private:
    void follow_events();
    void refresh_loop();
    boost::json::object current_status(const ComposeServiceRef &service);
    void warn_once(const std::string &text);

    StatusFn on_status_;
    WarningFn on_warning_;
    Options options_;
    std::string endpoint_error_;  // an unusable DOCKER_HOST from the environment
    std::unique_ptr<liveupdate::docker_engine::EngineClient> client_;

    StatusBoard<ComposeServiceRef> board_;
    std::shared_ptr<liveupdate::common::StreamCancel> current_stream_;  // under board_.lock()

    std::thread events_thread_;
    std::thread refresh_thread_;
};

}  // namespace liveupdate::host::compose_discovery
