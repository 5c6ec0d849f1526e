#include "host/up/up_log.hpp"

#include <chrono>
#include <cstdio>
#include <mutex>

#include "host/core/log.hpp"

namespace liveupdate::host::up {

namespace {

std::mutex g_stdout_mutex;

void write_to_stdout(std::string_view bytes) {
    const std::lock_guard lock(g_stdout_mutex);
    std::fwrite(bytes.data(), 1, bytes.size(), stdout);
    std::fflush(stdout);
}

}  // namespace

void UpLog::write(common::LogLevel level, std::string_view source, std::string_view text, LogSource kind) {
    if (level < threshold_) return;
    const std::string line = format_log_line(format_, common::MicroTime::from_system(std::chrono::system_clock::now()),
                                             level, source, text, kind) +
                             "\n";
    if (!log::held(line, &write_to_stdout)) write_to_stdout(line);
}

}  // namespace liveupdate::host::up
