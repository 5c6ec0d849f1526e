// The FileWatch objects in service: one TreeWatcher per FileWatch (its
// watchedPaths, its ignores plus the built-in ones), each batch of changes
// appended to the FileWatch's status as a FileEvent. The TreeWatchers share
// one InotifyHub: one inotify instance and one thread for all FileWatches.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>

#include <boost/json.hpp>

#include "common/mutex.hpp"
#include "host/up/event_consumers.hpp"
#include "host/up/file_events.hpp"
#include "host/up/tree_watcher.hpp"

namespace liveupdate::host::up {

class FileWatches {
public:
    // The FileWatch object with its new status, after each batch (watcher
    // thread): stores it and returns the LiveUpdates it makes due, unmarked.
    using ChangedFn = std::function<std::vector<std::string>(const boost::json::object &file_watch)>;
    // Marks them due, once they are recorded as having yet to see the batch.
    using DueFn = std::function<void(const std::vector<std::string> &live_updates)>;

    // Whether a changed path is the daemon's own doing (a file sync back
    // brought), not the developer's: dropped from the batch (watcher thread).
    using EchoFn = std::function<bool(const std::string &path)>;

    FileWatches(WatchTiming timing, ChangedFn on_change, DueFn on_due, TreeWatcher::WarnFn on_warning,
                EchoFn is_echo = {});
    ~FileWatches();

    // Starts (or, when its spec changed, restarts) watching; returns the object
    // with its current status. A bad spec yields status.error and no watching.
    boost::json::object apply(const boost::json::object &file_watch);
    void remove(const std::string &name);
    void stop_all();

    // Every batch up to this sequence number is stored, with the LiveUpdates
    // that have yet to see it recorded: a reconcile starting now sees them.
    std::uint64_t visible() const;
    // live_update finished a reconcile that started when visible() was seen.
    void reconciled(const std::string &live_update, std::uint64_t seen);
    // live_update was removed.
    void forget(const std::string &live_update);
    // When a watched file last changed (as its event arrived); nullopt when none did.
    std::optional<Debouncer::Clock::time_point> last_change() const;

private:
    struct Entry {
        boost::json::object object;  // spec as declared, status as kept here
        FileEventLog events;
        std::unique_ptr<TreeWatcher> watcher;
    };
    void on_batch(const std::string &name, std::vector<std::string> paths);
    // Throws std::runtime_error (naming the limit) when it cannot be made.
    std::shared_ptr<InotifyHub> shared_hub();

    WatchTiming timing_;
    ChangedFn on_change_;
    DueFn on_due_;
    TreeWatcher::WarnFn on_warning_;
    EchoFn is_echo_;
    mutable common::Mutex mutex_;
    std::shared_ptr<InotifyHub> hub_ LU_GUARDED_BY(mutex_);  // made at the first FileWatch, again if it could not be
    std::map<std::string, Entry> entries_ LU_GUARDED_BY(mutex_);
    std::uint64_t next_seq_ LU_GUARDED_BY(mutex_) = 1;
    std::set<std::uint64_t> in_flight_ LU_GUARDED_BY(mutex_);  // appended, not yet visible
    EventConsumers consumers_;
};

// The ignores of a FileWatch spec as a filter (basePath + dockerignore
// patterns; no patterns: the whole basePath). Throws std::invalid_argument or
// common::DecodeError naming the field.
WatchFilter file_watch_filter(const boost::json::object &spec);

}  // namespace liveupdate::host::up
