// The host's log: leveled lines to one sink (stderr by default), thread-safe.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>

namespace liveupdate::host {

enum class LogLevel { debug = 0, info = 1, warn = 2, error = 3 };

std::string_view to_string(LogLevel level);
// "debug" | "info" | "warn" | "error"; nullopt otherwise.
std::optional<LogLevel> parse_log_level(std::string_view text);
// Maps an ABI level (lu_log_level); unknown values count as info.
LogLevel from_abi_level(int level);

using LogSinkFn = std::function<void(LogLevel, std::string_view)>;

namespace log {
// Lines below the threshold are dropped (default: info).
void set_threshold(LogLevel level);
LogLevel threshold();
// Replaces the sink (default: "lu-host [level] line" on stderr); returns the previous one.
LogSinkFn set_sink(LogSinkFn sink);
void write(LogLevel level, std::string_view line);

inline void debug(std::string_view line) { write(LogLevel::debug, line); }
inline void info(std::string_view line) { write(LogLevel::info, line); }
inline void warn(std::string_view line) { write(LogLevel::warn, line); }
inline void error(std::string_view line) { write(LogLevel::error, line); }
}  // namespace log

}  // namespace liveupdate::host
