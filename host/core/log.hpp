// The host's log: leveled lines to one sink (stderr by default), thread-safe.
#pragma once

#include <functional>
#include <string_view>

#include "common/log_level.hpp"

namespace liveupdate::host {

using LogSinkFn = std::function<void(common::LogLevel, std::string_view)>;

namespace log {
// Lines below the threshold are dropped (default: info).
void set_threshold(common::LogLevel level);
common::LogLevel threshold();
// Replaces the sink (default: "lu-host [level] line" on stderr); returns the previous one.
LogSinkFn set_sink(LogSinkFn sink);
void write(common::LogLevel level, std::string_view line);

inline void debug(std::string_view line) { write(common::LogLevel::debug, line); }
inline void info(std::string_view line) { write(common::LogLevel::info, line); }
inline void warn(std::string_view line) { write(common::LogLevel::warn, line); }
inline void error(std::string_view line) { write(common::LogLevel::error, line); }
}  // namespace log

}  // namespace liveupdate::host
