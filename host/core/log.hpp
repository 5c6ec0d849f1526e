// The host's log: leveled lines to one sink (stderr by default, as text or
// JSON lines: host/core/log_line.hpp), thread-safe.
#pragma once

#include <functional>
#include <string_view>

#include "common/log_level.hpp"
#include "host/core/log_line.hpp"

namespace liveupdate::host {

using LogSinkFn = std::function<void(common::LogLevel, std::string_view)>;

namespace log {
// Lines below the threshold are dropped (default: info).
void set_threshold(common::LogLevel level);
common::LogLevel threshold();
// The default sink's format: text ("lu-host [level] line") or json (format_log_line's).
void set_format(LogFormat format);
// Replaces the sink (default: a line on stderr as set_format says); returns the previous one.
LogSinkFn set_sink(LogSinkFn sink);
void write(common::LogLevel level, std::string_view line);
// Why a command stops ("up: cannot listen ..."), whatever the threshold: on
// stderr as "lu-host LINE" in the text format, as an error record in json.
void failure(std::string_view line);

inline void debug(std::string_view line) { write(common::LogLevel::debug, line); }
inline void info(std::string_view line) { write(common::LogLevel::info, line); }
inline void warn(std::string_view line) { write(common::LogLevel::warn, line); }
inline void error(std::string_view line) { write(common::LogLevel::error, line); }

// While one lives on a thread, what a sink writes there is held, and goes out
// in one piece when the outermost ends: a step's lines for N replicas in one
// write(), not 3 N, and never interleaved with another thread's.
class HeldLines {
public:
    HeldLines();
    ~HeldLines();
    HeldLines(const HeldLines &) = delete;
    HeldLines &operator=(const HeldLines &) = delete;
};

// For a sink: keeps bytes for this thread's HeldLines, to be given to write
// when it ends, and says true; false when none lives (write them now).
using WriteBytesFn = void (*)(std::string_view bytes);
bool held(std::string_view bytes, WriteBytesFn write);
}  // namespace log

}  // namespace liveupdate::host
