// The daemon's log lines on stdout: time, level, the LiveUpdate (or other
// source) a line belongs to, and the text; as text or as JSON lines
// (host/core/log_line.hpp).
#pragma once

#include <string>
#include <string_view>

#include "common/log_level.hpp"
#include "host/core/log_line.hpp"

namespace liveupdate::host::up {

// Lines written while a log::HeldLines lives on the writing thread go out with
// the others it holds (host/core/log.hpp).
class UpLog {
public:
    UpLog(LogFormat format, common::LogLevel threshold) : format_(format), threshold_(threshold) {}
    // source: the LiveUpdate the line is about ("" for none), or what kind says it is.
    void write(common::LogLevel level, std::string_view source, std::string_view text,
               LogSource kind = LogSource::live_update);
    common::LogLevel threshold() const { return threshold_; }

private:
    LogFormat format_;
    common::LogLevel threshold_;
};

}  // namespace liveupdate::host::up
