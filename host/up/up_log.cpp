#include "host/up/up_log.hpp"

#include <boost/json.hpp>

#include <chrono>
#include <cstdio>
#include <mutex>

#include "host/core/log.hpp"

namespace liveupdate::host::up {

namespace {

// One record, one line: a control character (a newline in a file name, a
// terminal escape in a container's output) is shown escaped, never acted on.
void append_escaped(std::string &out, std::string_view text) {
    for (const char c : text) {
        const auto byte = static_cast<unsigned char>(c);
        if (byte >= 0x20 && byte != 0x7f) {
            out += c;
        } else if (c == '\n') {
            out += "\\n";
        } else if (c == '\r') {
            out += "\\r";
        } else if (c == '\t') {
            out += '\t';
        } else {
            char hex[8];
            std::snprintf(hex, sizeof hex, "\\x%02x", byte);
            out += hex;
        }
    }
}

std::mutex g_stdout_mutex;

void write_to_stdout(std::string_view bytes) {
    const std::lock_guard lock(g_stdout_mutex);
    std::fwrite(bytes.data(), 1, bytes.size(), stdout);
    std::fflush(stdout);
}

}  // namespace

std::string format_log_line(LogFormat format, common::MicroTime time, common::LogLevel level, std::string_view source,
                            std::string_view text) {
    const std::string_view level_name = common::to_string(level);
    if (format == LogFormat::json) {
        boost::json::object line{{"time", time.format()}, {"level", level_name}, {"message", text}};
        if (!source.empty()) line["source"] = source;
        return boost::json::serialize(line);
    }
    std::string out = time.format();
    out += ' ';
    out += level_name;
    out.append(6 - level_name.size(), ' ');
    if (!source.empty()) {
        out += '[';
        append_escaped(out, source);
        out += "] ";
    }
    append_escaped(out, text);
    return out;
}

void UpLog::write(common::LogLevel level, std::string_view source, std::string_view text) {
    if (level < threshold_) return;
    const std::string line = format_log_line(format_, common::MicroTime::from_system(std::chrono::system_clock::now()),
                                             level, source, text) +
                             "\n";
    if (!log::held(line, &write_to_stdout)) write_to_stdout(line);
}

}  // namespace liveupdate::host::up
