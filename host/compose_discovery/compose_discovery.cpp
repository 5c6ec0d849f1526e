#include "host/compose_discovery/compose_discovery.hpp"

#include <ctime>
#include <stdexcept>

#include "common/docker_engine/engine_client.hpp"
#include "common/json_fields.hpp"

namespace liveupdate::host::compose_discovery {
namespace {

namespace json = boost::json;
using liveupdate::docker_engine::EngineClient;
using liveupdate::docker_engine::EngineError;
using liveupdate::docker_engine::StreamCancel;

// Lifecycle events that can change which container stands for a service or its
// state; exec events (every live update makes some) are left out.
constexpr const char *kStateEvents[] = {"create", "start",   "restart", "die",    "stop", "kill",
                                        "pause",  "unpause", "destroy", "rename", "oom"};

std::string events_path(std::time_t since) {
    json::object filters;
    filters["type"] = json::array{"container"};
    filters["label"] = json::array{kComposeProjectLabel};
    json::array events;
    for (const char *e : kStateEvents) events.emplace_back(e);
    filters["event"] = std::move(events);
    return "/events?since=" + std::to_string(since) +
           "&filters=" + EngineClient::query_escape(json::serialize(filters));
}

std::string attribute(const json::value &event, std::string_view key) {
    return common::string_field(event, {"Actor", "Attributes", key});
}

}  // namespace

ComposeDiscovery::ComposeDiscovery(Options options, StatusFn on_status, WarningFn on_warning)
    : on_status_(std::move(on_status)), on_warning_(std::move(on_warning)), options_(std::move(options)) {
    liveupdate::docker_engine::Endpoint endpoint;
    try {
        endpoint = liveupdate::docker_engine::resolve_endpoint(options_.docker_host);
    } catch (const std::invalid_argument &e) {
        if (!options_.docker_host.empty()) throw;
        // A DOCKER_HOST from the environment we cannot use: say so, discover nothing.
        endpoint_error_ = std::string("docker compose discovery: DOCKER_HOST: ") + e.what();
    }
    client_ = std::make_unique<EngineClient>(endpoint, options_.api_version, options_.timeout);
    events_thread_ = std::thread([this] { follow_events(); });
    refresh_thread_ = std::thread([this] { refresh_loop(); });
}

ComposeDiscovery::~ComposeDiscovery() {
    board_.stop([this] {
        if (current_stream_) current_stream_->cancel();
    });
    events_thread_.join();
    refresh_thread_.join();
}

void ComposeDiscovery::watch(const std::string &object_name, ComposeServiceRef service) {
    board_.watch(object_name, std::move(service));
}

void ComposeDiscovery::unwatch(const std::string &object_name) { board_.unwatch(object_name); }

std::optional<json::object> ComposeDiscovery::status(const std::string &object_name) const {
    return board_.status(object_name);
}

void ComposeDiscovery::warn_once(const std::string &text) {
    if (board_.first_time(text) && on_warning_) on_warning_(text);
}

void ComposeDiscovery::follow_events() {
    if (!endpoint_error_.empty()) {
        warn_once(endpoint_error_);
        return;
    }
    for (;;) {
        auto cancel = std::make_shared<StreamCancel>();
        if (!board_.unless_stopping([&] { current_stream_ = cancel; })) return;
        // Events since a second before the refresh: nothing between the two is missed.
        const std::time_t since = std::time(nullptr) - 1;
        board_.mark_dirty_if(nullptr);
        try {
            client_->stream_lines(
                events_path(since),
                [this](std::string_view line) {
                    std::string project, service;
                    try {
                        const auto value = common::parse_limited(line);
                        project = attribute(value, kComposeProjectLabel);
                        service = attribute(value, kComposeServiceLabel);
                    } catch (const common::DecodeError &e) {
                        // Which service it concerns is unknown: every one is looked at again.
                        warn_once(std::string("docker compose discovery: an event the engine sent: ") + e.what());
                        board_.mark_dirty_if(nullptr);
                        return true;
                    }
                    board_.mark_dirty_if([&](const ComposeServiceRef &watched) {
                        return watched.project == project && watched.service == service;
                    });
                    return true;
                },
                *cancel);
            if (!cancel->cancelled())
                warn_once("docker compose discovery: the engine closed the event stream; reconnecting");
        } catch (const std::exception &e) {
            warn_once(std::string("docker compose discovery: ") + e.what());
        }
        if (!board_.unless_stopping([this] { current_stream_.reset(); })) return;
        if (!board_.sleep_for(options_.retry_delay)) return;
    }
}

json::object ComposeDiscovery::current_status(const ComposeServiceRef &service) {
    const auto list =
        client_->get("/containers/json?all=1&filters=" + EngineClient::query_escape(service_filter_json(service)));
    // The status is Tilt's (the container that stands for the service) plus
    // "replicas": every container of the service, so that each is updated.
    const auto [id, ids] = EngineClient::read_answer(list, "GET /containers/json", [](const json::value &listed) {
        if (!listed.is_array()) throw common::DecodeError("", "expected an array of containers");
        return std::pair(pick_service_container(listed.as_array()), service_container_ids(listed.as_array()));
    });
    json::object status;
    json::array replicas;
    for (const auto &each : ids) {
        const auto inspect = client_->get("/containers/" + each + "/json");
        if (inspect.status == 404) continue;  // removed between the two calls; its destroy event follows
        json::object one = EngineClient::read_answer(
            inspect, "GET /containers/" + each.substr(0, 12) + "/json",
            [](const json::value &value) { return compose_status_from_inspect(common::expect_object(value, "")); });
        if (id && each == *id) status = one;
        replicas.push_back(std::move(one));
    }
    status["replicas"] = std::move(replicas);
    return status;
}

void ComposeDiscovery::refresh_loop() {
    if (!endpoint_error_.empty()) return;
    while (auto next = board_.next_dirty()) {
        const auto &[name, watched] = *next;
        json::object status;
        try {
            status = current_status(watched.spec);
        } catch (const std::exception &e) {
            warn_once(std::string("docker compose discovery: ") + e.what());
            continue;  // the event stream's reconnect marks everything dirty again
        }
        board_.source_answers();
        if (board_.record(name, watched.spec, status) && on_status_) on_status_(name, status);
    }
}

}  // namespace liveupdate::host::compose_discovery
