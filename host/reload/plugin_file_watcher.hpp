// Watches a set of files (plugin files, the updater configuration) with
// inotify on their folders and reports a file once it has been quiet for
// `settle` after a change: a linker or cp writes in pieces, and a half-written
// plugin is not worth loading. Replacing a file (rename over it, unlink and
// create) counts as a change, like writing it in place.
#pragma once

#include <chrono>
#include <filesystem>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <thread>

#include "common/mutex.hpp"

namespace liveupdate::host::reload {

class PluginFileWatcher {
public:
    using ChangedFn = std::function<void(const std::filesystem::path &file)>;
    using WarnFn = std::function<void(const std::string &message)>;

    // on_changed runs on the watcher's thread, one file at a time; it may call watch().
    // Throws std::system_error when inotify is unavailable.
    PluginFileWatcher(std::chrono::milliseconds settle, ChangedFn on_changed, WarnFn on_warning);
    PluginFileWatcher(const PluginFileWatcher &) = delete;
    PluginFileWatcher &operator=(const PluginFileWatcher &) = delete;
    ~PluginFileWatcher();  // stops the thread; changes not yet reported are dropped

    // Replaces the watched set. Changes seen once this returns are reported, each
    // under its absolute, lexically normal path.
    void watch(const std::set<std::filesystem::path> &files);

private:
    void run();
    void read_events();
    void report_settled();

    using Clock = std::chrono::steady_clock;

    std::chrono::milliseconds settle_;
    ChangedFn on_changed_;
    WarnFn on_warning_;
    int inotify_fd_ = -1;
    int stop_fd_ = -1;

    common::Mutex mutex_;
    std::set<std::filesystem::path> files_ LU_GUARDED_BY(mutex_);
    std::map<int, std::filesystem::path> folder_of_watch_ LU_GUARDED_BY(mutex_);
    std::map<std::filesystem::path, Clock::time_point> due_
        LU_GUARDED_BY(mutex_);  // changed file → report when quiet until then
    std::thread thread_;
};

}  // namespace liveupdate::host::reload
