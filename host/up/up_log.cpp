#include "up/up_log.hpp"

#include <boost/json.hpp>

#include <chrono>
#include <cstdio>

namespace liveupdate::up {

std::string format_log_line(LogFormat format, MicroTime time, host::LogLevel level, std::string_view source,
                            std::string_view text) {
    const std::string_view level_name = host::to_string(level);
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
        out += source;
        out += "] ";
    }
    out += text;
    return out;
}

void UpLog::write(host::LogLevel level, std::string_view source, std::string_view text) {
    if (level < threshold_) return;
    const std::string line =
        format_log_line(format_, MicroTime::from_system(std::chrono::system_clock::now()), level, source, text) + "\n";
    std::lock_guard<std::mutex> lock(mutex_);
    std::fwrite(line.data(), 1, line.size(), stdout);
    std::fflush(stdout);
}

}  // namespace liveupdate::up
