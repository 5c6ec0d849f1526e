// The container's state as the daemon's inspect tells it (running, paused,
// gone, restarted since), and its restart.
#include <boost/json.hpp>
#include <thread>

#include "common/json_fields.hpp"
#include "updaters/docker/docker_updater.hpp"
#include "updaters/shared/update_failure.hpp"

namespace liveupdate::docker {

using updater::UpdateLog;

namespace {

// What an inspect tells of the container; updaters::InfraFailure naming what was
// asked and the field when the answer is not JSON or a field has another type.
struct Inspected {
    std::string id;
    std::string name;
    bool has_state = false;
    std::string status;
    std::int64_t exit_code = 0;
    std::string started_at;
    std::int64_t pid = 0;
    bool running = false;
    bool paused = false;
    bool restarting = false;
};

Inspected inspected(const std::string &body, std::string_view what) {
    try {
        const auto answer = common::parse_limited(body);
        const auto &o = common::expect_object(answer, "");
        Inspected out;
        out.id = common::string_field(o, {"Id"});
        out.name = common::string_field(o, {"Name"});
        const auto *state = common::object_field(o, "State", "");
        if (state == nullptr) return out;
        out.has_state = true;
        out.status = common::string_field(*state, "Status", "State");
        out.exit_code = common::int_field(*state, "ExitCode", "State");
        out.started_at = common::string_field(*state, "StartedAt", "State");
        out.pid = common::int_field(*state, "Pid", "State");
        out.running = common::bool_field(*state, "Running", "State");
        out.paused = common::bool_field(*state, "Paused", "State");
        out.restarting = common::bool_field(*state, "Restarting", "State");
        return out;
    } catch (const common::DecodeError &e) {
        throw updaters::InfraFailure(std::string(what) + ": the daemon's answer: " + e.what());
    }
}

// "status: exited, exit code 137" from an inspect's State.
std::string state_text(const Inspected &state) {
    std::string text = "status: " + state.status;
    if (state.status == "exited") text += ", exit code " + std::to_string(state.exit_code);
    return text;
}

}  // namespace

DockerUpdater::Target DockerUpdater::inspect_target(const updater::ContainerRef &container) {
    const std::string path = "/containers/" + container.id + "/json";
    const auto response = client_.get(path);
    const std::string shown =
        container.name.empty() ? container.id.substr(0, 12) : container.name + " (" + container.id.substr(0, 12) + ")";
    if (response.status == 404)
        throw updaters::ContainerNotRunning("container " + shown + " no longer exists: it was removed or recreated");
    docker_engine::EngineClient::expect_success(response, "GET " + path);
    const Inspected s = inspected(response.body, "GET " + path);
    Target target{s.id, container.name, {}};
    if (target.id.empty()) target.id = container.id;
    if (target.name.empty()) {
        target.name = s.name;
        if (target.name.starts_with("/")) target.name.erase(0, 1);
    }
    if (!s.has_state) throw updaters::InfraFailure("GET " + path + ": no State in the answer");
    target.started_at = s.started_at;
    target.pid = s.pid;
    if (s.paused)
        throw updaters::ContainerPaused("container " + target.display() + " is paused: unpause it to live update");
    if (!s.running || s.restarting)
        throw updaters::ContainerNotRunning("container " + target.display() + " is not running (" + state_text(s) +
                                            ")");
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
            const Inspected s = inspected(response.body, "inspect");
            if (!s.has_state) return {};
            if (!s.running || s.restarting)
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
        return inspected(response.body, "inspect").paused;
    } catch (const std::exception &) {
        return false;  // the update's own failure says enough
    }
}

std::string DockerUpdater::start_interrupted(const Target &target, const std::string &why) {
    if (why.find("exit code 137") != std::string::npos) return "it was killed (exit code 137)";
    try {
        const auto response = client_.get("/containers/" + target.id + "/json");
        if (response.status != 200) return {};
        const Inspected s = inspected(response.body, "inspect");
        if (!s.has_state) return {};
        if (s.paused) return "the container was paused";
        if (s.started_at != target.started_at) return "the container restarted meanwhile";
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
        throw updaters::ContainerNotRunning("container " + target.display() + " vanished before its restart");
    docker_engine::EngineClient::expect_success(response, "POST " + path);
}

}  // namespace liveupdate::docker
