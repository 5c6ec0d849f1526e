// Which shape a step document has (liveupdate_plugin.h's "stepVersion").
#pragma once

#include <boost/json.hpp>

namespace liveupdate::update_step {

// The step's stepVersion; absent reads 1 (plugins older than the field).
// Throws common::DecodeError on "stepVersion" when it is not an integer from
// 1 to max_step_version ("the step is of stepVersion 3, this host reads 1 to
// 2 only").
int step_version(const boost::json::object &step, int max_step_version);

}  // namespace liveupdate::update_step
