// Pure rules of Docker Compose discovery: which service a DockerComposeService
// names, which container stands for it, and its status in Tilt's shape. A
// field of the engine's answers of another type than Docker's is a
// common::DecodeError naming its path (`State.Running: expected boolean`).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <boost/json.hpp>

namespace liveupdate::host::compose_discovery {

inline constexpr const char *kComposeProjectLabel = "com.docker.compose.project";
inline constexpr const char *kComposeServiceLabel = "com.docker.compose.service";
inline constexpr const char *kComposeOneoffLabel = "com.docker.compose.oneoff";

struct ComposeServiceRef {
    std::string project;
    std::string service;
    auto operator<=>(const ComposeServiceRef &) const = default;
};

// spec.project.name and spec.service of a DockerComposeService; nullopt when
// either is missing or empty.
std::optional<ComposeServiceRef> compose_service_of(const boost::json::object &object);

// From a GET /containers/json answer: the container that stands for the
// service: a running one first, else the most recently created; one-off
// containers (`docker compose run`) never. nullopt when there is none.
std::optional<std::string> pick_service_container(const boost::json::array &containers);

// Every container of the service (a scaled service has several), one-off
// containers left out, in the order of the list.
std::vector<std::string> service_container_ids(const boost::json::array &containers);

// The DockerComposeService status for a GET /containers/{id}/json answer:
// {"containerID", "containerName", "containerState": {"status", "running",
// "error", "exitCode", "startedAt", "finishedAt"}, "portBindings": [...]},
// empty fields left out and times as RFC 3339 micro times.
boost::json::object compose_status_from_inspect(const boost::json::object &inspect);

// The filter query value for listing one service's containers.
std::string service_filter_json(const ComposeServiceRef &service);

}  // namespace liveupdate::host::compose_discovery
