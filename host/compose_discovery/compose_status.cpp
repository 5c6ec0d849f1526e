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
    const auto *labels = container.if_contains("Labels");
    if (labels == nullptr || !labels->is_object()) return {};
    return common::text_at(labels->as_object(), label);
}

// NetworkSettings.Ports {"80/tcp": [{"HostIp", "HostPort"}], ...} as Tilt's
// portBindings [{containerPort, hostPort, hostIP}], by container port.
json::array port_bindings_of(const json::object &inspect) {
    std::vector<std::tuple<std::int64_t, std::int64_t, std::string>> found;
    const auto *settings = inspect.if_contains("NetworkSettings");
    const auto *ports =
        settings != nullptr && settings->is_object() ? settings->as_object().if_contains("Ports") : nullptr;
    if (ports == nullptr || !ports->is_object()) return {};
    for (const auto &[key, bindings] : ports->as_object()) {
        const std::int64_t container_port = std::atoll(std::string(key).c_str());
        if (!bindings.is_array()) continue;
        for (const auto &b : bindings.as_array()) {
            if (!b.is_object()) continue;
            const std::int64_t host_port = std::atoll(common::text_at(b.as_object(), "HostPort").c_str());
            if (container_port > 0 && host_port > 0)
                found.emplace_back(container_port, host_port, common::text_at(b.as_object(), "HostIp"));
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

}  // namespace

std::optional<ComposeServiceRef> compose_service_of(const json::object &object) {
    const auto *spec = object.if_contains("spec");
    if (spec == nullptr || !spec->is_object()) return std::nullopt;
    ComposeServiceRef ref;
    ref.service = common::text_at(spec->as_object(), "service");
    if (const auto *project = spec->as_object().if_contains("project"); project != nullptr && project->is_object())
        ref.project = common::text_at(project->as_object(), "name");
    if (ref.service.empty() || ref.project.empty()) return std::nullopt;
    return ref;
}

std::optional<std::string> pick_service_container(const json::array &containers) {
    const json::object *best = nullptr;
    const auto rank = [](const json::object &c) {
        const bool running = common::text_at(c, "State") == "running";
        const auto *created = c.if_contains("Created");
        const std::int64_t when = created != nullptr && created->is_int64() ? created->as_int64() : 0;
        return std::pair{running, when};
    };
    for (const auto &value : containers) {
        if (!value.is_object()) continue;
        const auto &c = value.as_object();
        if (label_of(c, kComposeOneoffLabel) == "True" || common::text_at(c, "Id").empty()) continue;
        if (best == nullptr || rank(c) > rank(*best)) best = &c;
    }
    if (best == nullptr) return std::nullopt;
    return common::text_at(*best, "Id");
}

std::vector<std::string> service_container_ids(const json::array &containers) {
    std::vector<std::string> ids;
    for (const auto &value : containers) {
        if (!value.is_object()) continue;
        const auto &c = value.as_object();
        if (label_of(c, kComposeOneoffLabel) == "True" || common::text_at(c, "Id").empty()) continue;
        ids.push_back(common::text_at(c, "Id"));
    }
    return ids;
}

json::object compose_status_from_inspect(const json::object &inspect) {
    json::object status;
    status["containerID"] = common::text_at(inspect, "Id");
    auto name = common::text_at(inspect, "Name");
    if (name.starts_with("/")) name.erase(0, 1);
    if (!name.empty()) status["containerName"] = name;
    const auto *state_value = inspect.if_contains("State");
    if (state_value == nullptr || !state_value->is_object()) return status;
    const auto &state = state_value->as_object();
    json::object out;
    if (const auto s = common::text_at(state, "Status"); !s.empty()) out["status"] = s;
    if (const auto *running = state.if_contains("Running");
        running != nullptr && running->is_bool() && running->as_bool())
        out["running"] = true;
    if (const auto e = common::text_at(state, "Error"); !e.empty()) out["error"] = e;
    if (const auto *code = state.if_contains("ExitCode"); code != nullptr && code->is_int64() && code->as_int64() != 0)
        out["exitCode"] = code->as_int64();
    if (const auto t = micro_time_of(common::text_at(state, "StartedAt")); !t.empty()) out["startedAt"] = t;
    if (const auto t = micro_time_of(common::text_at(state, "FinishedAt")); !t.empty()) out["finishedAt"] = t;
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
