// The container's state as the daemon's inspect tells it (running, paused,
// gone, restarted since), and its restart.
#include <boost/json.hpp>
#include <thread>

#include "common/json_fields.hpp"
#include "updaters/docker/docker_updater.hpp"
#include "updaters/docker/update_failure.hpp"

namespace liveupdate::docker {

using updater::UpdateLog;

namespace {

boost::json::object parse_object(const std::string &body, std::string_view what) {
    boost::system::error_code ec;
    auto value = boost::json::parse(body, ec);
    if (ec || !value.is_object()) throw InfraFailure(std::string(what) + ": the daemon's answer is not a JSON object");
    return std::move(value.as_object());
}

// "status: exited, exit code 137" from an inspect's State.
std::string state_text(const boost::json::object &state) {
    std::string text = "status: " + common::text_at(state, "Status");
    const auto *code = state.if_contains("ExitCode");
    if (common::text_at(state, "Status") == "exited" && code != nullptr && code->is_int64())
        text += ", exit code " + std::to_string(code->as_int64());
    return text;
}

}  // namespace

DockerUpdater::Target DockerUpdater::inspect_target(const updater::ContainerRef &container) {
    const std::string path = "/containers/" + container.id + "/json";
    const auto response = client_.get(path);
    const std::string shown =
        container.name.empty() ? container.id.substr(0, 12) : container.name + " (" + container.id.substr(0, 12) + ")";
    if (response.status == 404)
        throw ContainerNotRunning("container " + shown + " no longer exists: it was removed or recreated");
    docker_engine::EngineClient::expect_success(response, "GET " + path);
    const auto object = parse_object(response.body, "GET " + path);
    Target target{common::text_at(object, "Id"), container.name, {}};
    if (target.id.empty()) target.id = container.id;
    if (target.name.empty()) {
        target.name = common::text_at(object, "Name");
        if (target.name.starts_with("/")) target.name.erase(0, 1);
    }
    const auto *state = object.if_contains("State");
    if (state == nullptr || !state->is_object()) throw InfraFailure("GET " + path + ": no State in the answer");
    const auto &s = state->as_object();
    target.started_at = common::text_at(s, "StartedAt");
    if (const auto *pid = s.if_contains("Pid"); pid != nullptr && pid->is_int64()) target.pid = pid->as_int64();
    if (common::flag_at(s, "Paused"))
        throw ContainerPaused("container " + target.display() + " is paused: unpause it to live update");
    if (!common::flag_at(s, "Running") || common::flag_at(s, "Restarting"))
        throw ContainerNotRunning("container " + target.display() + " is not running (" + state_text(s) + ")");
    return target;
}

std::string DockerUpdater::container_gone_reason(const Target &target, bool killed) {
    if (target.id.empty()) return {};
    // A kill ends the exec a moment before the daemon marks the container exited.
    const int attempts = killed ? 20 : 1;
    for (int attempt = 0; attempt < attempts; ++attempt) {
        if (attempt > 0) std::this_thread::sleep_for(std::chrono::milliseconds(100));
        try {
            const auto response = client_.get("/containers/" + target.id + "/json");
            if (response.status == 404) return "container " + target.display() + " was removed during the update";
            if (response.status != 200) return {};
            const auto object = parse_object(response.body, "inspect");
            const auto *state = object.if_contains("State");
            if (state == nullptr || !state->is_object()) return {};
            const auto &s = state->as_object();
            if (!common::flag_at(s, "Running") || common::flag_at(s, "Restarting"))
                return "container " + target.display() + " stopped during the update (" + state_text(s) + ")";
        } catch (const std::exception &) {
            return {};  // the original failure says enough
        }
    }
    return {};
}

bool DockerUpdater::is_paused(const Target &target) {
    try {
        const auto response = client_.get("/containers/" + target.id + "/json");
        if (response.status != 200) return false;
        const auto object = parse_object(response.body, "inspect");
        const auto *state = object.if_contains("State");
        return state != nullptr && state->is_object() && common::flag_at(state->as_object(), "Paused");
    } catch (const std::exception &) {
        return false;  // the update's own failure says enough
    }
}

std::string DockerUpdater::start_interrupted(const Target &target, const std::string &why) {
    if (why.find("exit code 137") != std::string::npos) return "it was killed (exit code 137)";
    try {
        const auto response = client_.get("/containers/" + target.id + "/json");
        if (response.status != 200) return {};
        const auto object = parse_object(response.body, "inspect");
        const auto *state = object.if_contains("State");
        if (state == nullptr || !state->is_object()) return {};
        const auto &s = state->as_object();
        if (common::flag_at(s, "Paused")) return "the container was paused";
        if (common::text_at(s, "StartedAt") != target.started_at) return "the container restarted meanwhile";
    } catch (const std::exception &) {
        return {};  // the agent's failure says enough
    }
    return {};
}

void DockerUpdater::restart(const Target &target, const UpdateLog &log) {
    log(LU_LOG_DEBUG, "Restarting container: " + target.display());
    const std::string path = "/containers/" + target.id + "/restart?t=0";
    const auto response = client_.post(path);
    if (response.status == 404)
        throw ContainerNotRunning("container " + target.display() + " vanished before its restart");
    docker_engine::EngineClient::expect_success(response, "POST " + path);
}

}  // namespace liveupdate::docker
