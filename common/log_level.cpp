#include "common/log_level.hpp"

namespace liveupdate::common {

std::string_view to_string(LogLevel level) {
    switch (level) {
    case LogLevel::debug: return "debug";
    case LogLevel::info: return "info";
    case LogLevel::warn: return "warn";
    case LogLevel::error: return "error";
    }
    return "info";
}

std::optional<LogLevel> parse_log_level(std::string_view text) {
    for (const LogLevel level : {LogLevel::debug, LogLevel::info, LogLevel::warn, LogLevel::error}) {
        if (text == to_string(level)) return level;
    }
    return std::nullopt;
}

LogLevel from_abi(std::int32_t level) {
    if (level < LU_LOG_DEBUG || level > LU_LOG_ERROR) return LogLevel::info;
    return static_cast<LogLevel>(level);
}

lu_log_level to_abi(LogLevel level) { return static_cast<lu_log_level>(level); }

}  // namespace liveupdate::common
