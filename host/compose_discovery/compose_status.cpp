#include "host/compose_discovery/compose_status.hpp"

#include <algorithm>
#include <cstdlib>
#include <tuple>
#include <vector>

#include "common/json_fields.hpp"
#include "common/micro_time.hpp"

namespace liveupdate::host::compose_discovery {
namespace {

namespace json = boost::json;

// Docker's zero time is year 1; Tilt leaves unset times out.
std::string micro_time_of(const std::string &docker_time) {
    if (docker_time.empty() || docker_time.starts_with("0001-01-01")) return {};
    const auto parsed = common::MicroTime::parse(docker_time);
    return parsed ? parsed->format() : std::string();
}

std::string label_of(const json::object &container, const char *label) {
    return common::string_field(container, {"Labels", label});
}

// NetworkSettings.Ports {"80/tcp": [{"HostIp", "HostPort"}], ...} as Tilt's
// portBindings [{containerPort, hostPort, hostIP}], by container port.
json::array port_bindings_of(const json::object &inspect) {
    std::vector<std::tuple<std::int64_t, std::int64_t, std::string>> found;
    const json::object *ports = common::object_field(inspect, {"NetworkSettings", "Ports"});
    if (ports == nullptr) return {};
    for (const auto &[key, value] : *ports) {
        const std::int64_t container_port = std::atoll(std::string(key).c_str());
        const std::string path = common::child("NetworkSettings.Ports", key);
        if (value.is_null()) continue;  // exposed, not published
        if (!value.is_array()) throw common::DecodeError(path, "expected array");
        const json::array &bindings = value.as_array();
        for (std::size_t i = 0; i < bindings.size(); ++i) {
            const json::object &b = common::expect_object(bindings[i], common::index(path, i));
            const std::int64_t host_port =
                std::atoll(common::string_field(b, "HostPort", common::index(path, i)).c_str());
            if (container_port > 0 && host_port > 0)
                found.emplace_back(container_port, host_port,
                                   common::string_field(b, "HostIp", common::index(path, i)));
        }
    }
    std::sort(found.begin(), found.end());
    json::array out;
    for (const auto &[container_port, host_port, ip] : found) {
        json::object binding{{"containerPort", container_port}, {"hostPort", host_port}};
        if (!ip.empty()) binding["hostIP"] = ip;
        out.push_back(std::move(binding));
    }
    return out;
}

// The containers of a GET /containers/json answer, each an object.
std::vector<const json::object *> containers_of(const json::array &containers) {
    std::vector<const json::object *> out;
    for (std::size_t i = 0; i < containers.size(); ++i)
        out.push_back(&common::expect_object(containers[i], common::index("", i)));
    return out;
}

}  // namespace

std::optional<ComposeServiceRef> compose_service_of(const json::object &object) {
    ComposeServiceRef ref;
    ref.service = common::string_field(object, {"spec", "service"});
    ref.project = common::string_field(object, {"spec", "project", "name"});
    if (ref.service.empty() || ref.project.empty()) return std::nullopt;
    return ref;
}

std::optional<std::string> pick_service_container(const json::array &containers) {
    const json::object *best = nullptr;
    std::pair<bool, std::int64_t> best_rank;
    for (std::size_t i = 0; i < containers.size(); ++i) {
        const std::string path = common::index("", i);
        const json::object &c = common::expect_object(containers[i], path);
        if (label_of(c, kComposeOneoffLabel) == "True" || common::string_field(c, "Id", path).empty()) continue;
        const std::pair rank{common::string_field(c, "State", path) == "running",
                             common::int_field(c, "Created", path)};
        if (best == nullptr || rank > best_rank) {
            best = &c;
            best_rank = rank;
        }
    }
    if (best == nullptr) return std::nullopt;
    return common::string_field(*best, {"Id"});
}

std::vector<std::string> service_container_ids(const json::array &containers) {
    std::vector<std::string> ids;
    for (const json::object *c : containers_of(containers)) {
        if (label_of(*c, kComposeOneoffLabel) == "True" || common::string_field(*c, {"Id"}).empty()) continue;
        ids.push_back(common::string_field(*c, {"Id"}));
    }
    return ids;
}

json::object compose_status_from_inspect(const json::object &inspect) {
    json::object status;
    status["containerID"] = common::string_field(inspect, {"Id"});
    auto name = common::string_field(inspect, {"Name"});
    if (name.starts_with("/")) name.erase(0, 1);
    if (!name.empty()) status["containerName"] = name;
    const json::object *state = common::object_field(inspect, {"State"});
    if (state == nullptr) return status;
    json::object out;
    if (const auto s = common::string_field(*state, "Status", "State"); !s.empty()) out["status"] = s;
    if (common::bool_field(*state, "Running", "State")) out["running"] = true;
    if (const auto e = common::string_field(*state, "Error", "State"); !e.empty()) out["error"] = e;
    if (const auto code = common::int_field(*state, "ExitCode", "State"); code != 0) out["exitCode"] = code;
    if (const auto t = micro_time_of(common::string_field(*state, "StartedAt", "State")); !t.empty())
        out["startedAt"] = t;
    if (const auto t = micro_time_of(common::string_field(*state, "FinishedAt", "State")); !t.empty())
        out["finishedAt"] = t;
    status["containerState"] = std::move(out);
    if (auto ports = port_bindings_of(inspect); !ports.empty()) status["portBindings"] = std::move(ports);
    return status;
}

std::string service_filter_json(const ComposeServiceRef &service) {
    json::object filters;
    filters["label"] = json::array{std::string(kComposeProjectLabel) + "=" + service.project,
                                   std::string(kComposeServiceLabel) + "=" + service.service};
    return json::serialize(filters);
}

}  // namespace liveupdate::host::compose_discovery
