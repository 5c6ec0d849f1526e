// The FileWatch objects in service: one TreeWatcher per FileWatch (its
// watchedPaths, its ignores plus the built-in ones), each batch of changes
// appended to the FileWatch's status as a FileEvent.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>

#include <boost/json.hpp>

#include "up/tree_watcher.hpp"

namespace liveupdate::up {

class FileWatches {
public:
    // The FileWatch object with its new status, after each batch (watcher thread).
    using ChangedFn = std::function<void(const boost::json::object &file_watch)>;

    FileWatches(WatchTiming timing, ChangedFn on_change, TreeWatcher::WarnFn on_warning);
    ~FileWatches();

    // Starts (or, when its spec changed, restarts) watching; returns the object
    // with its current status. A bad spec yields status.error and no watching.
    boost::json::object apply(const boost::json::object &file_watch);
    void remove(const std::string &name);
    void stop_all();

private:
    struct Entry {
        boost::json::object object;  // spec as declared, status as kept here
        std::unique_ptr<TreeWatcher> watcher;
    };
    void on_batch(const std::string &name, std::vector<std::string> paths);

    WatchTiming timing_;
    ChangedFn on_change_;
    TreeWatcher::WarnFn on_warning_;
    std::mutex mutex_;
    std::map<std::string, Entry> entries_;
};

// The ignores of a FileWatch spec as a filter (basePath + dockerignore
// patterns; no patterns: the whole basePath). Throws std::invalid_argument.
WatchFilter file_watch_filter(const boost::json::object &spec);

}  // namespace liveupdate::up
