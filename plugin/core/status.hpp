// LiveUpdate status rules: failure states with Tilt's transition times (X06).
#pragma once

#include <string>

#include "plugin/core/api/live_update.hpp"

namespace liveupdate {

// A failed state at now; keeps the previous transition time when the reason is unchanged.
api::LiveUpdateStateFailed create_failed_state(const api::LiveUpdateStatus &previous, std::string reason,
                                               std::string message, common::MicroTime now);

}  // namespace liveupdate
