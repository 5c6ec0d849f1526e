// Cuts container output into log lines, for every source of it (the Docker
// Engine's exec stream, the Kubernetes exec stream and kubectl, lu-agent's
// run output, local containers, docker-compose): at '\n', at '\r' (a
// progress bar redraws its line with it; "\r\n" ends one line). A line longer
// than the cap keeps its first bytes, marked as cut, and the rest of it is
// dropped: memory stays bounded whatever a container writes (a 10 MB line,
// `cat /dev/zero`), and each byte is looked at once.
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <string_view>

namespace liveupdate::common {

class LineSplitter {
public:
    static constexpr std::size_t kMaxLineBytes = std::size_t{16} * 1024;
    using Emit = std::function<void(std::string_view line)>;

    explicit LineSplitter(Emit emit, std::size_t max_line_bytes = kMaxLineBytes)
        : emit_(std::move(emit)), max_(max_line_bytes) {}

    void feed(std::string_view bytes);
    // The unfinished last line, if any (the stream ended).
    void flush();

    // What a cut line ends with, after its first max_line_bytes.
    static std::string cut_marker(std::size_t max_line_bytes);

private:
    void end_line();
    void cut();

    Emit emit_;
    std::size_t max_;
    std::string pending_;
    bool after_cr_ = false;
    bool dropping_ = false;  // the current line was cut: its rest is skipped
};

}  // namespace liveupdate::common
