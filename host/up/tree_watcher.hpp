// Watches files and directory trees with inotify and reports batches of
// changed paths.
//
// Directories created (or moved in) later are watched too, and the files
// already in them reported. Ignored directories are not watched at all.
// Changes are never lost: after an inotify queue overflow, or when the
// kernel's watch limit is reached (then the trees are polled), the trees
// are rescanned and every path whose size, mtime or type changed, or that
// appeared or vanished since the last scan, is reported.
//
// Its watches live in an InotifyHub, which it may share with other watchers
// (the FileWatches do: one inotify instance and thread for all of them).
#pragma once

#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "host/up/debouncer.hpp"
#include "host/up/inotify_hub.hpp"
#include "host/up/tree_snapshot.hpp"

namespace liveupdate::host::up {

// How a watcher (or a shared hub) says that the kernel dropped events.
inline constexpr std::string_view kInotifyOverflowWarning = "inotify queue overflow: rescanning the watched trees";

struct WatchTiming {
    std::chrono::milliseconds debounce{50};
    std::chrono::milliseconds max_wait{10000};
    std::chrono::milliseconds poll_interval{500};  // used only beyond the watch limit
};

struct WatchFilter {
    // True when a path is to be ignored (not reported).
    std::function<bool(const std::string &)> ignored;
    // True when a directory and everything beneath it is ignored (not watched).
    std::function<bool(const std::string &)> ignored_dir;
};

class TreeWatcher {
public:
    using BatchFn = std::function<void(std::vector<std::string> paths)>;
    using WarnFn = std::function<void(const std::string &message)>;

    // roots: absolute paths (files, directories, or not yet existing). The
    // watches are in place when it returns (changes after that are seen);
    // on_batch and on_warning are called on the hub's thread. A queue
    // overflow is the hub's to report (once for all its watchers).
    TreeWatcher(std::shared_ptr<InotifyHub> hub, std::vector<std::string> roots, WatchFilter filter, WatchTiming timing,
                BatchFn on_batch, WarnFn on_warning);
    // With a hub of its own; it reports an overflow itself. Throws
    // std::runtime_error when inotify is unavailable (naming the limit reached).
    TreeWatcher(std::vector<std::string> roots, WatchFilter filter, WatchTiming timing, BatchFn on_batch,
                WarnFn on_warning);
    TreeWatcher(const TreeWatcher &) = delete;
    TreeWatcher &operator=(const TreeWatcher &) = delete;
    // Waits for a batch being reported; a pending batch is dropped.
    ~TreeWatcher();
    // When the last change it reports was seen (as it arrived, before its
    // batch is due); nullopt before the first. Thread-safe.
    std::optional<Debouncer::Clock::time_point> last_change() const;

private:
    TreeWatcher(std::shared_ptr<InotifyHub> hub, bool own_hub, std::vector<std::string> roots, WatchFilter filter,
                WatchTiming timing, BatchFn on_batch, WarnFn on_warning);

    struct State;
    std::shared_ptr<InotifyHub> hub_;
    std::shared_ptr<State> state_;  // shared with the hub, which may be ticking it as it is dropped
};

}  // namespace liveupdate::host::up
