// Helpers for tests that watch real files: a temporary folder and a sink
// that collects reported paths and lets a test wait for some to arrive.
#pragma once

#include <unistd.h>

#include <chrono>
#include <condition_variable>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "tests/support/temp_dir.hpp"

namespace up_test {

namespace fs = std::filesystem;

using liveupdate::test::TempDir;

// This process's threads, and its inotify instances (its fds that are one).
inline int thread_count() {
    int n = 0;
    for ([[maybe_unused]] const auto &task : fs::directory_iterator("/proc/self/task")) ++n;
    return n;
}
inline int inotify_instance_count() {
    int n = 0;
    std::error_code ec;
    for (const auto &fd : fs::directory_iterator("/proc/self/fd"))
        if (fs::read_symlink(fd.path(), ec).string() == "anon_inode:inotify") ++n;
    return n;
}

inline void write_file(const fs::path &p, const std::string &text) {
    fs::create_directories(p.parent_path());
    std::ofstream(p) << text;
}

class Collected {
public:
    void add(const std::vector<std::string> &paths) {
        {
            std::lock_guard<std::mutex> lock(m_);
            seen_.insert(paths.begin(), paths.end());
            ++batches_;
        }
        cv_.notify_all();
    }
    // Waits (a generous guard against hanging, not a timing assertion) until
    // every path was reported; true when they all were.
    bool wait_for(const std::vector<std::string> &paths) {
        std::unique_lock<std::mutex> lock(m_);
        return cv_.wait_for(lock, std::chrono::seconds(20), [&] {
            for (const auto &p : paths)
                if (seen_.count(p) == 0) return false;
            return true;
        });
    }
    bool saw(const std::string &path) {
        std::lock_guard<std::mutex> lock(m_);
        return seen_.count(path) > 0;
    }
    void clear() {
        std::lock_guard<std::mutex> lock(m_);
        seen_.clear();
    }

private:
    std::mutex m_;
    std::condition_variable cv_;
    std::set<std::string> seen_;
    int batches_ = 0;
};

}  // namespace up_test
