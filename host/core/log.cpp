#include "host/core/log.hpp"

#include <atomic>
#include <iostream>
#include <mutex>

namespace liveupdate::host {

using common::LogLevel;

namespace {

std::atomic<LogLevel> g_threshold{LogLevel::info};
std::mutex g_mutex;

void write_to_stderr(LogLevel level, std::string_view line) {
    std::cerr << "lu-host [" << to_string(level) << "] " << line << '\n';
}

LogSinkFn &sink_slot() {
    static LogSinkFn sink = write_to_stderr;
    return sink;
}

}  // namespace

namespace log {

void set_threshold(LogLevel level) { g_threshold = level; }
LogLevel threshold() { return g_threshold; }

LogSinkFn set_sink(LogSinkFn sink) {
    std::lock_guard lock(g_mutex);
    LogSinkFn previous = std::move(sink_slot());
    sink_slot() = sink ? std::move(sink) : LogSinkFn(write_to_stderr);
    return previous;
}

void write(LogLevel level, std::string_view line) {
    if (level < g_threshold.load()) return;
    std::lock_guard lock(g_mutex);
    sink_slot()(level, line);
}

}  // namespace log
}  // namespace liveupdate::host
