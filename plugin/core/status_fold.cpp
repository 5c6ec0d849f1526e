#include "plugin/core/status_fold.hpp"

#include "common/text_format.hpp"

namespace liveupdate {

namespace {

// The selected container under the key, if it is one.
const SelectedContainer *selected(const ContainerKey &key, const std::vector<SelectedContainer> &containers) {
    const SelectedContainer *found = nullptr;
    for (const auto &sc : containers)
        if (sc.ref.id == key.container_id && sc.ref.pod == key.pod_name) found = &sc;
    return found;
}

}  // namespace

OutcomeResult outcome_result(const UpdatedContainer &updated, const updater::Outcome &outcome, common::MicroTime now) {
    const updater::ContainerRef &ref = updated.ref;
    api::LiveUpdateContainerStatus c;
    c.container_name = ref.name;
    c.container_id = ref.id;
    c.pod_name = ref.pod;
    c.namespace_name = ref.namespace_name;
    c.last_file_time_synced = updated.new_high_water_mark.is_zero() ? now : updated.new_high_water_mark;

    OutcomeResult out;
    const std::string &display = updated.display_name;
    switch (outcome.kind) {
    case updater::Outcome::Kind::container_not_running:
        // Paused, say: a passing state, not the container's failure. Nothing
        // changed in it, so its changes stay pending and go out once it runs.
        out.line = LogLine{common::LogLevel::info, "  \u2192 Container " + display + " is not running (" +
                                                       outcome.message + "): its changes go out once it runs again"};
        c.last_file_time_synced = updated.last_synced;
        c.waiting = api::LiveUpdateContainerStateWaiting{"ContainerWaiting", "Waiting for container to start"};
        out.one.containers.push_back(std::move(c));
        out.files_applied = false;
        break;
    case updater::Outcome::Kind::ok:
        out.line = LogLine{common::LogLevel::info, "  \u2192 Container " + display + " updated!"};
        out.one.containers.push_back(std::move(c));
        break;
    case updater::Outcome::Kind::run_failure:
        out.line =
            LogLine{common::LogLevel::info, "  \u2192 Failed to update container " + display + ": " + outcome.message};
        c.last_exec_error = outcome.message;
        out.one.containers.push_back(std::move(c));
        break;
    case updater::Outcome::Kind::infra_failure: {
        // X03: any other updater failure fails the LiveUpdate, naming the container.
        const std::string msg = !ref.pod.empty() ? "Updating pod " + ref.pod + ": " + outcome.message
                                                 : "Updating container " + display + ": " + outcome.message;
        out.one.failed = api::LiveUpdateStateFailed{"UpdateFailed", msg, {}};
        break;
    }
    }
    return out;
}

ContainerFailure recorded_failure(const api::LiveUpdateStateFailed &failed, common::MicroTime low_water_mark,
                                  const ContainerKey &key, const std::vector<SelectedContainer> &containers) {
    common::MicroTime started_at;  // zero: unknown
    for (const auto &sc : containers)
        if (sc.ref.id == key.container_id && sc.ref.pod == key.pod_name && sc.state.running)
            started_at = sc.state.running->started_at;
    return ContainerFailure{failed.reason, failed.message, low_water_mark, started_at};
}

std::string holding_all_message(const std::string &reason, const std::string &message, const ContainerKey &key,
                                const std::vector<SelectedContainer> &containers) {
    if (reason != "UpdateFailed") return message;  // a plan's failure (a stop path) is every container's own
    std::string name;
    std::size_t others = 0;
    for (const auto &sc : containers) {
        if (sc.ref.id == key.container_id && sc.ref.pod == key.pod_name)
            name = sc.ref.name;
        else
            ++others;
    }
    if (others == 0) return message;  // Tilt's message, word for word: nobody else is held
    // C11: Tilt's rule for pods holds the others; the status says why they get nothing.
    return message + " (container " + container_display_name(key.pod_name, name, key.container_id) + " failed; the " +
           std::to_string(others) + " other container(s) are held because of it, Tilt's rule for pods: they get " +
           "the changes they missed once it is gone, replaced or started again, or a new build starts)";
}

void stamp_agent(api::LiveUpdateContainerStatus &entry, const ContainerTrack &track) {
    entry.agent = track.agent;
    entry.last_restart_time = track.last_restart_time;
}

HeldEntry held_entry(const ContainerKey &key, common::MicroTime last_synced, const api::LiveUpdateStateFailed &failed,
                     const std::vector<SelectedContainer> &containers) {
    HeldEntry out;
    out.status = api::LiveUpdateContainerStatus{"", key.container_id, key.pod_name, key.namespace_name, last_synced,
                                                "", std::nullopt};
    if (const SelectedContainer *sc = selected(key, containers)) out.status.container_name = sc->ref.name;
    out.display_name = container_display_name(key.pod_name, out.status.container_name, key.container_id);
    const std::string why = failed.message + " (held: container " + out.display_name +
                            " gets no changes until it starts again, is replaced or a new build starts; the "
                            "other containers keep getting theirs)";
    out.status.waiting = api::LiveUpdateContainerStateWaiting{failed.reason, why};
    return out;
}

std::string held_line(const std::string &live_update, const std::string &display_name,
                      const api::LiveUpdateStateFailed &failed) {
    return "LiveUpdate " + common::go_quote(live_update) + " holds container " + display_name + " (" + failed.reason +
           ": " + failed.message +
           "): it gets no changes until it starts again, is replaced or a new build starts; the other containers "
           "keep getting theirs";
}

std::string completed_error(const api::LiveUpdateStatus &status, const std::string *first_held) {
    if (status.failed) return status.failed->message;
    if (first_held != nullptr) return *first_held;
    for (const auto &c : status.containers)
        if (!c.last_exec_error.empty()) return c.last_exec_error;  // X02: the completed event carries it
    return "";
}

}  // namespace liveupdate
