// The FileWatch objects in service: one TreeWatcher per FileWatch (its
// watchedPaths, its ignores plus the built-in ones), each batch of changes
// appended to the FileWatch's status as a FileEvent.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>

#include <boost/json.hpp>

#include "up/file_events.hpp"
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

    // Batches whose LiveUpdates have been marked due so far (a sequence number).
    std::uint64_t marked() const;
    // Every batch up to seq has been seen by the LiveUpdates: older FileEvents may go.
    void consumed(std::uint64_t seq);

private:
    struct Entry {
        boost::json::object object;  // spec as declared, status as kept here
        FileEventLog events;
        std::unique_ptr<TreeWatcher> watcher;
    };
    void on_batch(const std::string &name, std::vector<std::string> paths);

    WatchTiming timing_;
    ChangedFn on_change_;
    TreeWatcher::WarnFn on_warning_;
    mutable std::mutex mutex_;
    std::map<std::string, Entry> entries_;
    std::uint64_t next_seq_ = 1;
    std::set<std::uint64_t> in_flight_;  // appended, LiveUpdates not yet marked due
    std::uint64_t consumed_ = 0;
};

// The ignores of a FileWatch spec as a filter (basePath + dockerignore
// patterns; no patterns: the whole basePath). Throws std::invalid_argument.
WatchFilter file_watch_filter(const boost::json::object &spec);

}  // namespace liveupdate::up
