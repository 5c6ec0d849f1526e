// How a container's result folds into the LiveUpdate's status (Tilt's
// applyInternal after the updater, and its failure handling): an outcome's
// entry and line (X02-X04), the failure recorded on the container (C07), the
// message of one that holds every container (C11) or its own alone (C10),
// and the error of the completed event (X05).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "plugin/core/containers.hpp"
#include "plugin/core/monitor.hpp"
#include "plugin/core/step.hpp"

namespace liveupdate {

// An update handed out, as its outcome is folded.
struct UpdatedContainer {
    updater::ContainerRef ref;
    std::string display_name;
    common::MicroTime new_high_water_mark;  // zero: the time of the outcome
    common::MicroTime last_synced;          // the track's mark before the update
};

struct OutcomeResult {
    api::LiveUpdateStatus one;    // the container's entry, or the LiveUpdate's failure
    bool files_applied = true;    // the container's mark moves to the new high-water mark
    std::optional<LogLine> line;  // none for an infrastructure failure: the status says it
};

OutcomeResult outcome_result(const UpdatedContainer &updated, const updater::Outcome &outcome, common::MicroTime now);

// C07: the failure recorded on the container; its start time lets a restart clear it.
ContainerFailure recorded_failure(const api::LiveUpdateStateFailed &failed, common::MicroTime low_water_mark,
                                  const ContainerKey &key, const std::vector<SelectedContainer> &containers);

// C11: a failure's message for the status when it holds every selected
// container: an update failure of one of several says the others are held because of it.
std::string holding_all_message(const std::string &reason, const std::string &message, const ContainerKey &key,
                                const std::vector<SelectedContainer> &containers);

// A container's entry says what its track keeps of the updates before: how
// it got lu-agent and when it last restarted.
void stamp_agent(api::LiveUpdateContainerStatus &entry, const ContainerTrack &track);

// C10: the status entry of a container its failure holds alone.
struct HeldEntry {
    api::LiveUpdateContainerStatus status;
    std::string display_name;
};
HeldEntry held_entry(const ContainerKey &key, common::MicroTime last_synced, const api::LiveUpdateStateFailed &failed,
                     const std::vector<SelectedContainer> &containers);

// C10: the warning that a container is held, the first time.
std::string held_line(const std::string &live_update, const std::string &display_name,
                      const api::LiveUpdateStateFailed &failed);

// X05: the completed event's error: the LiveUpdate's failure, else the first
// hold's (first_held: null without one), else the first exec error (X02).
std::string completed_error(const api::LiveUpdateStatus &status, const std::string *first_held);

}  // namespace liveupdate
