// Shared by the hot reload tests: temporary folders, plugin files copied,
// truncated or replaced the way a rebuild does, and polling with a guard.
#pragma once

#include <stdlib.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <functional>
#include <mutex>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "host/core/log.hpp"
#include "tests/support/temp_dir.hpp"

namespace reload_test {

namespace fs = std::filesystem;

using liveupdate::test::TempDir;

// Reads through the stream buffer in blocks: a plugin of several MB read a
// character at a time through an iterator took a minute in a sanitized test.
inline std::string read_file(const fs::path &file) {
    std::ifstream in(file, std::ios::binary);
    std::ostringstream content;
    content << in.rdbuf();
    return content.str();
}

inline void write_file(const fs::path &file, const std::string &content) {
    fs::create_directories(file.parent_path());
    std::ofstream(file, std::ios::binary | std::ios::trunc) << content;
}

// Overwrites target in place with source's content (as cp does).
inline void copy_over(const fs::path &source, const fs::path &target) { write_file(target, read_file(source)); }

// Overwrites target in place with the first 16 KiB of source: a build
// interrupted mid-write, cut inside the code the loader would map.
inline void truncated_copy_over(const fs::path &source, const fs::path &target) {
    write_file(target, read_file(source).substr(0, std::size_t{16} * 1024));
}

// Replaces target by renaming a complete new file over it (as many build tools do).
inline void rename_over(const fs::path &source, const fs::path &target) {
    const fs::path staged = target.parent_path() / (".staged-" + target.filename().string());
    fs::copy_file(source, staged, fs::copy_options::overwrite_existing);
    fs::rename(staged, target);
}

// Polls until pred holds; a generous guard against hanging, not a timing check.
inline bool wait_until(const std::function<bool()> &pred, std::chrono::seconds limit = std::chrono::seconds(20)) {
    const auto end = std::chrono::steady_clock::now() + limit;
    while (std::chrono::steady_clock::now() < end) {
        if (pred()) return true;
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    return pred();
}

// Captures the host log while alive.
class LogCapture {
public:
    LogCapture() {
        previous_ = liveupdate::host::log::set_sink([this](liveupdate::common::LogLevel, std::string_view line) {
            std::lock_guard lock(mutex_);
            lines_.emplace_back(line);
        });
    }
    LogCapture(const LogCapture &) = delete;
    LogCapture &operator=(const LogCapture &) = delete;
    ~LogCapture() { liveupdate::host::log::set_sink(previous_); }

    bool contains(const std::string &text) const {
        std::lock_guard lock(mutex_);
        for (const auto &line : lines_)
            if (line.find(text) != std::string::npos) return true;
        return false;
    }
    std::string all() const {
        std::lock_guard lock(mutex_);
        std::string out;
        for (const auto &line : lines_) out += line + "\n";
        return out;
    }

private:
    liveupdate::host::LogSinkFn previous_;
    mutable std::mutex mutex_;
    std::vector<std::string> lines_;
};

}  // namespace reload_test
