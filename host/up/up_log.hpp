// The daemon's log lines on stdout: time, level, the LiveUpdate (or other
// source) a line belongs to, and the text; as text or as JSON lines.
#pragma once

#include <string>
#include <string_view>

#include "common/log_level.hpp"
#include "common/micro_time.hpp"

namespace liveupdate::host::up {

enum class LogFormat { text, json };

// text: "2026-01-01T00:00:01.000000Z info  [hello] Will copy 1 file(s) ...", control
//       characters escaped (\n, \r, \x1b): one record is one line
// json: {"time": ..., "level": ..., "source": ..., "message": ...}
// Lines written while a log::HeldLines lives on the writing thread go out with
// the others it holds (host/core/log.hpp).
std::string format_log_line(LogFormat format, common::MicroTime time, common::LogLevel level, std::string_view source,
                            std::string_view text);

class UpLog {
public:
    UpLog(LogFormat format, common::LogLevel threshold) : format_(format), threshold_(threshold) {}
    void write(common::LogLevel level, std::string_view source, std::string_view text);
    common::LogLevel threshold() const { return threshold_; }

private:
    LogFormat format_;
    common::LogLevel threshold_;
};

}  // namespace liveupdate::host::up
