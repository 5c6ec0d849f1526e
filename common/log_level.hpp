// The one log-level vocabulary of the host and the plugin: its values are the
// ABI's lu_log_level, its text ("debug", "info", "warn", "error") is what
// logs, step documents and --log-level spell.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include "liveupdate/abi.h"

namespace liveupdate::common {

enum class LogLevel : std::int32_t {
    debug = LU_LOG_DEBUG,
    info = LU_LOG_INFO,
    warn = LU_LOG_WARN,
    error = LU_LOG_ERROR
};

std::string_view to_string(LogLevel level);
// "debug" | "info" | "warn" | "error"; nullopt otherwise.
std::optional<LogLevel> parse_log_level(std::string_view text);
// An ABI level as a plugin passes it; values outside lu_log_level count as info.
LogLevel from_abi(std::int32_t level);
lu_log_level to_abi(LogLevel level);

}  // namespace liveupdate::common
