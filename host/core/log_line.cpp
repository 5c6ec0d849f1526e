#include "host/core/log_line.hpp"

#include <boost/json.hpp>

#include <cstdio>

#include "common/utf8.hpp"

namespace liveupdate::host {

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

// A JSON string holds UTF-8 only: a container's output that is not stays readable, its bad bytes as \xNN.
std::string json_text(std::string_view text) {
    return common::is_valid_utf8(text) ? std::string(text) : common::printable_path(text);
}

std::string_view key_of(LogSource kind) {
    switch (kind) {
    case LogSource::live_update: return "liveUpdate";
    case LogSource::local_container: return "localContainer";
    case LogSource::service: return "service";
    }
    return "source";
}

}  // namespace

std::optional<LogFormat> parse_log_format(std::string_view text) {
    if (text == "text") return LogFormat::text;
    if (text == "json") return LogFormat::json;
    return std::nullopt;
}

std::string format_log_line(LogFormat format, common::MicroTime time, common::LogLevel level, std::string_view source,
                            std::string_view text, LogSource kind) {
    const std::string_view level_name = common::to_string(level);
    if (format == LogFormat::json) {
        // Keys in this order: time and level first, as klog writes them.
        boost::json::object line{{"time", time.format()}, {"level", level_name}};
        if (!source.empty()) line[key_of(kind)] = json_text(source);
        line["message"] = json_text(text);
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

}  // namespace liveupdate::host
