#include "host/core/log.hpp"

#include <atomic>
#include <chrono>
#include <iostream>
#include <string>

#include "common/mutex.hpp"

namespace liveupdate::host {

using common::LogLevel;

namespace {

std::atomic<LogLevel> g_threshold{LogLevel::info};
std::atomic<LogFormat> g_format{LogFormat::text};
common::Mutex g_mutex;

void write_to_stderr(LogLevel level, std::string_view line) {
    if (g_format.load() == LogFormat::json)
        std::cerr << format_log_line(LogFormat::json, common::MicroTime::from_system(std::chrono::system_clock::now()),
                                     level, "", line)
                  << '\n';
    else
        std::cerr << "lu-host [" << to_string(level) << "] " << line << '\n';
}

LogSinkFn &current_sink() {
    static LogSinkFn sink = write_to_stderr;
    return sink;
}

// This thread's held bytes, and the one sink they go to.
struct Held {
    int depth = 0;
    std::string bytes;
    log::WriteBytesFn write = nullptr;

    void flush() {
        if (!bytes.empty() && write != nullptr) write(bytes);
        bytes.clear();
    }
};

thread_local Held t_held;

}  // namespace

namespace log {

void set_threshold(LogLevel level) { g_threshold = level; }
LogLevel threshold() { return g_threshold; }
void set_format(LogFormat format) { g_format = format; }

LogSinkFn set_sink(LogSinkFn sink) {
    common::MutexLock lock(g_mutex);
    LogSinkFn previous = std::move(current_sink());
    current_sink() = sink ? std::move(sink) : LogSinkFn(write_to_stderr);
    return previous;
}

void write(LogLevel level, std::string_view line) {
    if (level < g_threshold.load()) return;
    common::MutexLock lock(g_mutex);
    current_sink()(level, line);
}

void failure(std::string_view line) {
    common::MutexLock lock(g_mutex);
    if (g_format.load() == LogFormat::json)
        write_to_stderr(LogLevel::error, line);
    else
        std::cerr << "lu-host " << line << '\n';
}

HeldLines::HeldLines() { ++t_held.depth; }

HeldLines::~HeldLines() {
    if (--t_held.depth == 0) t_held.flush();
}

bool held(std::string_view bytes, WriteBytesFn write) {
    if (t_held.depth == 0) return false;
    if (t_held.write != write) {
        t_held.flush();  // a second sink: what the first holds goes first
        t_held.write = write;
    }
    t_held.bytes += bytes;
    return true;
}

}  // namespace log
}  // namespace liveupdate::host
