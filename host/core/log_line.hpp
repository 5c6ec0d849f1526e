// One log record as a line: as text for people, or as one JSON object for
// a log pipeline (as klog's JSON format: keys, not a parsed text). The one
// format of lu-host's logs (host/core/log.hpp, host/up/up_log.hpp).
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "common/log_level.hpp"
#include "common/micro_time.hpp"

namespace liveupdate::host {

enum class LogFormat { text, json };

// "text", "json" as --log-format spells them; nullopt for anything else.
std::optional<LogFormat> parse_log_format(std::string_view text);

// What a line's source is: its key in a JSON line.
enum class LogSource { live_update, local_container, service };

// text: "2026-01-01T00:00:01.000000Z info  [hello] Will copy 1 file(s) ...", control
//       characters escaped (\n, \r, \x1b): one record is one line
// json: {"time": "2026-01-01T00:00:01.000000Z", "level": "info", "liveUpdate": "hello", "message": ...},
//       the source under "liveUpdate", "localContainer" or "service", left out when ""
std::string format_log_line(LogFormat format, common::MicroTime time, common::LogLevel level, std::string_view source,
                            std::string_view text, LogSource kind = LogSource::live_update);

}  // namespace liveupdate::host
