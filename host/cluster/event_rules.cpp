#include "host/cluster/event_rules.hpp"

#include <algorithm>

#include "common/json_fields.hpp"

namespace liveupdate::host::cluster {
namespace json = boost::json;

namespace {

// Waiting for a container to start or for a manual trigger is not a failure.
bool waiting_is_failure(const std::string &reason) {
    return !reason.empty() && reason != "ContainerWaiting" && reason != "Trigger";
}

std::string container_text(const json::object &c) {
    const std::string name = common::string_field(c, {"containerName"});
    const std::string pod = common::string_field(c, {"podName"});
    std::string text = "container " + (name.empty() ? common::string_field(c, {"containerID"}) : name);
    return pod.empty() ? text : text + " of pod " + pod;
}

}  // namespace

std::vector<EventNote> failures_in(const json::object &status) {
    std::vector<EventNote> out;
    if (const json::object *failed = common::object_field(status, {"failed"})) {
        const std::string reason = common::string_field(*failed, {"reason"});
        if (!reason.empty()) out.push_back({true, reason, common::string_field(*failed, {"message"}), "Update"});
    }
    const json::value *containers = common::member(status, "containers");
    if (containers == nullptr || !containers->is_array()) return out;
    for (const json::value &c : containers->as_array()) {
        if (!c.is_object()) continue;
        const json::object &one = c.as_object();
        const std::string waiting = common::string_field(one, {"waiting", "reason"});
        if (waiting_is_failure(waiting))
            out.push_back({true, waiting, common::string_field(one, {"waiting", "message"}), "Update"});
        const std::string exec_error = common::string_field(one, {"lastExecError"});
        if (!exec_error.empty()) out.push_back({true, "ExecError", container_text(one) + ": " + exec_error, "Update"});
    }
    return out;
}

EventNote LiveUpdateEvents::refused(const std::string &live_update, const std::string &message) {
    EventNote note{true, "ObjectRefused", message, "Admit"};
    failing_[live_update] = {note};
    return note;
}

std::vector<EventNote> LiveUpdateEvents::reconciled(const std::string &live_update, const ReconcileFacts &facts) {
    std::vector<EventNote> now = failures_in(facts.status);
    std::vector<EventNote> &before = failing_[live_update];
    std::vector<EventNote> out;
    for (const EventNote &f : now)
        if (facts.updates > 0 || std::find(before.begin(), before.end(), f) == before.end()) out.push_back(f);
    if (now.empty() && !before.empty())
        out.push_back(EventNote{false, "Recovered",
                                "no longer failing (was " + before.front().reason + ": " + before.front().note + ")",
                                "Update"});
    for (const std::string &c : facts.restarted)
        out.push_back(EventNote{false, "Restarted", "restarted " + c + " after updating it", "Restart"});
    before = std::move(now);
    return out;
}

void LiveUpdateEvents::forget(const std::string &live_update) { failing_.erase(live_update); }

}  // namespace liveupdate::host::cluster
