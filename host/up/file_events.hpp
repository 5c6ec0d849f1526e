// FileWatch status bookkeeping, as Tilt keeps it: each batch of changes is a
// FileEvent {time, seenFiles}; only the newest events are kept.
#pragma once

#include <string>
#include <vector>

#include <boost/json.hpp>

#include "core/micro_time.hpp"

namespace liveupdate::up {

inline constexpr std::size_t kMaxFileEvents = 20;

// Appends the event to status.fileEvents (dropping the oldest beyond
// kMaxFileEvents) and sets status.lastEventTime.
void append_file_event(boost::json::object &status, MicroTime time, const std::vector<std::string> &paths);

}  // namespace liveupdate::up
