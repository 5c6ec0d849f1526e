// The reconcile protocol's values: steps the plugin hands out (one container
// update, every container's update of one change, or done with the status)
// and the outcomes the host reports back.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <boost/json.hpp>

#include "common/log_level.hpp"
#include "common/update_step/container_update.hpp"
#include "common/update_step/outcome.hpp"
#include "common/update_step/step_envelope.hpp"
#include "plugin/core/api/file_watch.hpp"
#include "plugin/core/api/live_update.hpp"
#include "plugin/core/plan.hpp"

namespace liveupdate {

using update_step::LogLine;

struct UpdateEvent {
    std::string type;  // "started" or "completed"
    std::string live_update;
    std::string manifest;
    std::vector<std::string> files_changed;  // started
    std::string error;                       // completed
};

// What the step asks of one container: the schema the host decodes.
using update_step::ContainerUpdate;

// One update of an "updates" step with the lines written before it (stepVersion 2).
using update_step::BatchedUpdate;

struct Step {
    std::vector<LogLine> log;
    std::vector<UpdateEvent> events;
    std::optional<ContainerUpdate> update;  // set: an "update" step
    std::vector<BatchedUpdate> updates;     // not empty: an "updates" step
    bool stops_at_infra_failure = true;     // "updates": the fold ends at an infrastructure failure (C07, not C10)
    // A "done" step after an "updates" step: the lines each folded outcome wrote, in order.
    std::vector<std::vector<LogLine>> results;
    std::optional<api::LiveUpdateStatus> status;  // "done": nullopt when the LiveUpdate is absent
    bool status_changed = false;
};

// The step document's text (liveupdate_plugin.h), stepVersion last. Written
// as text: an initial sync's "started" event lists every file, and a tree of
// them first would hold each path once more.
std::string encode_step(const Step &step, int step_version);

// Throws common::DecodeError naming the field.
updater::Outcome decode_outcome(std::string_view json);
// {"outcomes": [outcome, ...]}, the answer to an "updates" step; throws common::DecodeError.
std::vector<updater::Outcome> decode_outcomes(std::string_view json);
// Throws common::DecodeError unless the outcomes answer a step of `updates`
// updates: one each, or with stops_at_infra_failure up to the first
// infrastructure failure (the fold stops there).
void check_outcomes(const std::vector<updater::Outcome> &outcomes, std::size_t updates, bool stops_at_infra_failure);

}  // namespace liveupdate
