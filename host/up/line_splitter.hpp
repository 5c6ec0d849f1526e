// Splits a process's output into log lines: at '\n', at '\r' (a progress bar
// redraws its line with it; "\r\n" ends one line) and every kMaxLineBytes of a
// line that never ends. Memory stays bounded whatever the process writes
// (`cat /dev/zero`), and each byte is looked at once.
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <string_view>

namespace liveupdate::host::up {

class LineSplitter {
public:
    static constexpr std::size_t kMaxLineBytes = std::size_t{16} * 1024;
    using Emit = std::function<void(std::string_view line)>;

    explicit LineSplitter(Emit emit) : emit_(std::move(emit)) {}

    void feed(std::string_view bytes);
    // The unfinished last line, if any (the process ended).
    void flush();

private:
    Emit emit_;
    std::string pending_;
    bool after_cr_ = false;
};

}  // namespace liveupdate::host::up
