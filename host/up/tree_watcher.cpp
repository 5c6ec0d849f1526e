#include "host/up/tree_watcher.hpp"
#include "common/mutex.hpp"

#include <sys/inotify.h>
#include <sys/stat.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <deque>
#include <map>
#include <set>
#include <string>
#include <utility>

#include "common/builtin_ignores.hpp"
#include "common/utf8.hpp"
#include "host/up/inotify_limits.hpp"

namespace liveupdate::host::up {
namespace {

constexpr std::uint32_t kTreeMask = IN_CREATE | IN_DELETE | IN_CLOSE_WRITE | IN_MODIFY | IN_MOVED_FROM | IN_MOVED_TO |
                                    IN_ATTRIB | IN_DELETE_SELF | IN_MOVE_SELF | IN_DONT_FOLLOW | IN_EXCL_UNLINK;

bool is_under(const std::string &path, const std::string &dir) {
    if (dir == "/") return path.size() > 1 && path.front() == '/';
    return path.size() > dir.size() && path.compare(0, dir.size(), dir) == 0 && path[dir.size()] == '/';
}

std::string parent_of(const std::string &path) {
    const std::size_t slash = path.rfind('/');
    if (slash == std::string::npos || slash == 0) return "/";
    return path.substr(0, slash);
}

std::string child_of(const std::string &dir, const char *name) {
    return dir == "/" ? "/" + std::string(name) : dir + "/" + name;
}

// The keys of a map by path strictly beneath dir: one run from "dir/" up to
// "dir0" ('0' follows '/'). A run from dir itself would stop at a sibling
// such as "dir.d", which sorts between "dir" and "dir/x".
template <class Map>
auto keys_beneath(Map &map, const std::string &dir) {
    const std::string first = dir == "/" ? "/" : dir + "/";
    std::string past = first;
    past.back() = '0';
    return std::pair{map.lower_bound(first), map.lower_bound(past)};
}

}  // namespace

struct TreeWatcher::State : InotifyHub::Client {
    struct Watch {
        std::string dir;
        bool recursive = false;  // part of a watched tree (else only an ancestor of a root)
    };

    std::vector<std::string> roots;
    WatchFilter filter;
    WatchTiming timing;
    BatchFn on_batch;
    WarnFn warn;
    InotifyHub &hub;
    bool warns_overflow;  // its hub is its own (a shared hub reports an overflow once)
    // Set once the constructor has set the watches up (it alone touches the
    // state until then, holding no lock: its caller's locks must not come
    // before this mutex, which the callbacks run under).
    std::atomic<bool> ready{false};
    // Guards everything below but `inbox` and `last_change`: held by the
    // hub's thread in tick(), and by the destructor while it stops.
    common::Mutex mutex;
    bool stopped = false;
    common::Mutex inbox_mutex;
    std::deque<InotifyEvent> inbox;  // arrived, not handled yet
    std::map<int, Watch> watches;
    std::map<std::string, int> wd_of_dir;
    bool degraded = false;               // the watch limit was reached: poll instead
    std::set<int> *rewatched = nullptr;  // during a rescan: the watches still in use
    Debouncer::Clock::time_point last_poll{};
    TreeSnapshot snapshot;
    Debouncer debouncer;
    std::set<std::string> warned_names;                 // not UTF-8: warned about once each
    std::atomic<Debouncer::Clock::rep> last_change{0};  // time_since_epoch; 0: none yet

    State(std::vector<std::string> r, WatchFilter f, WatchTiming t, BatchFn b, WarnFn w, InotifyHub &h, bool own_hub)
        : roots(std::move(r)),
          filter(std::move(f)),
          timing(t),
          on_batch(std::move(b)),
          warn(std::move(w)),
          hub(h),
          warns_overflow(own_hub),
          debouncer(t.debounce, t.max_wait) {}

    bool ignored(const std::string &path) const {
        return common::builtin_ignores().matches(path) || (filter.ignored && filter.ignored(path));
    }
    bool ignored_dir(const std::string &dir) const {
        return common::builtin_ignores().matches(dir) || (filter.ignored_dir && filter.ignored_dir(dir));
    }
    bool in_tree(const std::string &path) const {
        return std::any_of(roots.begin(), roots.end(),
                           [&](const std::string &r) { return path == r || is_under(path, r); });
    }

    void report(const std::string &path, Debouncer::Change change = Debouncer::Change::other) {
        if (!common::is_valid_utf8(path)) {
            // A FileWatch status is JSON: such a name would poison every batch.
            if (warned_names.insert(path).second && warn)
                warn("ignoring " + common::printable_path(path) +
                     ": its name is not valid UTF-8, which a FileWatch cannot carry; rename it to sync it");
            return;
        }
        if (ignored(path)) return;
        const auto now = Debouncer::Clock::now();
        last_change.store(now.time_since_epoch().count(), std::memory_order_relaxed);
        debouncer.add(path, now, change);
    }

    int add_watch(const std::string &dir, bool recursive) {
        const int wd = hub.add_watch(this, dir, kTreeMask);
        if (wd < 0) {
            if (wd == -ENOSPC || wd == -ENOMEM) {
                if (!degraded && warn)
                    warn("inotify watch limit reached at " + dir + ": polling the watched trees instead (raise " +
                         describe_inotify_limit("max_user_watches", read_inotify_limit("max_user_watches")) + ")");
                degraded = true;
            }
            return -1;
        }
        if (rewatched != nullptr) rewatched->insert(wd);
        Watch &w = watches[wd];
        if (w.dir != dir) {
            w.dir = dir;
            w.recursive = false;
        }
        w.recursive = w.recursive || recursive;
        wd_of_dir[dir] = wd;
        return wd;
    }

    void add_tree(const std::string &dir, bool report_contents) {
        if (ignored_dir(dir)) return;
        TreeSnapshot found;
        // Each folder is watched before it is listed: a file made in it after
        // the listing raises an event instead of going unseen.
        scan_tree(
            dir,
            [&](const std::string &d) {
                if (ignored_dir(d)) return true;
                add_watch(d, true);
                return false;
            },
            [&](const std::string &p) { return ignored(p); }, found);
        if (!report_contents) return;
        for (const auto &[path, stamp] : found)
            if (path != dir) report(path);
    }

    // Watches a root, or (when it is a file or missing) the directory that
    // will tell when it appears or changes.
    void setup_root(const std::string &root, bool report_contents) {
        struct stat st {};
        if (::lstat(root.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) {
            add_tree(root, report_contents);
            if (report_contents) report(root);
            return;
        }
        std::string ancestor = parent_of(root);
        while (ancestor != "/" && ::lstat(ancestor.c_str(), &st) != 0) ancestor = parent_of(ancestor);
        add_watch(ancestor, false);
        if (report_contents) report(root);
    }

    // A watch already taken over at another path (its folder moved there and
    // was listed before this event was handled: a moved folder keeps its
    // inode, so it keeps its watch) stays: only the stale name goes.
    void forget_watches_under(const std::string &dir, bool remove_from_kernel) {
        const auto forget = [&](std::map<std::string, int>::iterator it) {
            const auto watch = watches.find(it->second);
            if (watch != watches.end() && watch->second.dir == it->first) {
                if (remove_from_kernel) hub.remove_watch(this, it->second);
                watches.erase(watch);
            }
            return wd_of_dir.erase(it);
        };
        if (const auto own = wd_of_dir.find(dir); own != wd_of_dir.end()) forget(own);
        for (auto [it, past] = keys_beneath(wd_of_dir, dir); it != past;) it = forget(it);
    }

    // A folder that moved away took its files along with a single event, for
    // the folder: each one it was known to hold is reported gone as well. Else
    // a folder made again at its name before the update would be copied over
    // the container's old one, which keeps the files the source no longer has.
    void report_known_beneath(const std::string &dir) {
        for (auto [it, past] = keys_beneath(snapshot, dir); it != past; ++it) report(it->first);
    }

    TreeSnapshot scan_roots() const {
        TreeSnapshot out;
        for (const auto &root : roots)
            scan_tree(
                root, [&](const std::string &d) { return ignored_dir(d); },
                [&](const std::string &p) { return ignored(p) || !in_tree(p); }, out);
        return out;
    }

    // Walks the roots again, watching what is not watched yet. Existing
    // watches are kept: removing them would queue an event each, and with a
    // small queue that alone would overflow it again. Watches on directories
    // no longer found (moved away) are dropped.
    void rescan(bool rewatch) {
        if (rewatch) {
            std::set<int> in_use;
            rewatched = &in_use;
            wd_of_dir.clear();
            for (const auto &root : roots) setup_root(root, false);
            rewatched = nullptr;
            for (auto it = watches.begin(); it != watches.end();) {
                if (in_use.count(it->first) != 0) {
                    ++it;
                    continue;
                }
                hub.remove_watch(this, it->first);
                it = watches.erase(it);
            }
        }
        TreeSnapshot now = scan_roots();
        for (const auto &path : diff_snapshots(snapshot, now)) report(path);
        snapshot = std::move(now);
    }

    void handle(const InotifyEvent &ev) {
        if (ev.mask & IN_Q_OVERFLOW) {
            if (warns_overflow && warn) warn(std::string(kInotifyOverflowWarning));
            rescan(true);
            return;
        }
        const auto found = watches.find(ev.wd);
        if (found == watches.end()) return;
        if (ev.mask & IN_IGNORED) {
            wd_of_dir.erase(found->second.dir);
            watches.erase(found);
            return;
        }
        const Watch watch = found->second;
        if (ev.name.empty()) {
            if ((ev.mask & (IN_DELETE_SELF | IN_MOVE_SELF)) &&
                std::find(roots.begin(), roots.end(), watch.dir) != roots.end()) {
                forget_watches_under(watch.dir, true);
                report_known_beneath(watch.dir);
                report(watch.dir);
                setup_root(watch.dir, false);
            }
            return;
        }
        const std::string path = child_of(watch.dir, ev.name.c_str());
        const bool appeared = ev.mask & (IN_CREATE | IN_MOVED_TO);
        const bool vanished = ev.mask & (IN_DELETE | IN_MOVED_FROM);
        const bool is_dir = ev.mask & IN_ISDIR;

        for (const auto &root : roots) {
            if (path == root) {
                if (appeared && is_dir) setup_root(root, true);
                if (!watch.recursive) report(path);
            } else if (appeared && is_dir && is_under(root, path)) {
                setup_root(root, true);
            }
        }
        if (!watch.recursive || !in_tree(path)) return;
        if (is_dir && vanished) {
            forget_watches_under(path, (ev.mask & IN_MOVED_FROM) != 0);
            report_known_beneath(path);
        }
        if (is_dir && appeared) add_tree(path, true);
        const bool complete = !is_dir && (ev.mask & (IN_CLOSE_WRITE | IN_MOVED_TO));
        report(path, complete ? Debouncer::Change::completed_write : Debouncer::Change::other);
    }

    void forget_snapshot_under(const std::string &path) {
        snapshot.erase(path);
        const auto [first, past] = keys_beneath(snapshot, path);
        snapshot.erase(first, past);
    }

    void emit() {
        std::vector<std::string> batch = debouncer.take();
        for (const auto &path : batch) {
            FileStamp stamp;
            if (stamp_of(path, stamp))
                snapshot[path] = stamp;
            else
                forget_snapshot_under(path);
        }
        on_batch(std::move(batch));
    }

    void start() {
        for (const auto &root : roots) setup_root(root, false);
        snapshot = scan_roots();
        last_poll = Debouncer::Clock::now();
    }

    void event(const InotifyEvent &ev) override {
        common::MutexLock lock(inbox_mutex);
        inbox.push_back(ev);
    }

    std::optional<InotifyHub::Clock::time_point> tick(InotifyHub::Clock::time_point now) override {
        // Not set up yet: the constructor wakes the hub when it is.
        if (!ready.load(std::memory_order_acquire)) return std::nullopt;
        common::MutexLock lock(mutex);
        if (stopped) return std::nullopt;
        std::deque<InotifyEvent> arrived;
        {
            common::MutexLock inbox_lock(inbox_mutex);
            arrived.swap(inbox);
        }
        for (const auto &ev : arrived) handle(ev);
        if (degraded && now >= last_poll + timing.poll_interval) {
            rescan(false);
            last_poll = Debouncer::Clock::now();
        }
        if (debouncer.ready(Debouncer::Clock::now())) emit();
        std::optional<InotifyHub::Clock::time_point> next = debouncer.deadline();
        if (degraded && (!next || last_poll + timing.poll_interval < *next)) next = last_poll + timing.poll_interval;
        return next;
    }

    // With mutex held (or before ready): no tick does anything any more;
    // returns the watches it held.
    std::vector<int> stop_locked() {
        stopped = true;
        std::vector<int> held;
        held.reserve(watches.size());
        for (const auto &[wd, watch] : watches) held.push_back(wd);
        return held;
    }

    std::vector<int> stop() {
        common::MutexLock lock(mutex);
        return stop_locked();
    }
};

TreeWatcher::TreeWatcher(std::shared_ptr<InotifyHub> hub, std::vector<std::string> roots, WatchFilter filter,
                         WatchTiming timing, BatchFn on_batch, WarnFn on_warning)
    : TreeWatcher(std::move(hub), false, std::move(roots), std::move(filter), timing, std::move(on_batch),
                  std::move(on_warning)) {}

TreeWatcher::TreeWatcher(std::shared_ptr<InotifyHub> hub, bool own_hub, std::vector<std::string> roots,
                         WatchFilter filter, WatchTiming timing, BatchFn on_batch, WarnFn on_warning)
    : hub_(std::move(hub)),
      state_(std::make_shared<State>(std::move(roots), std::move(filter), timing, std::move(on_batch),
                                     std::move(on_warning), *hub_, own_hub)) {
    // Attached first, so that no event on a watch made here is missed: they
    // wait in its inbox until the watches are all in place.
    hub_->attach(state_);
    try {
        state_->start();
    } catch (...) {
        hub_->detach(state_.get(), state_->stop_locked());
        throw;
    }
    state_->ready.store(true, std::memory_order_release);
    hub_->wake();
}

TreeWatcher::TreeWatcher(std::vector<std::string> roots, WatchFilter filter, WatchTiming timing, BatchFn on_batch,
                         WarnFn on_warning)
    : TreeWatcher(std::make_shared<InotifyHub>(), true, std::move(roots), std::move(filter), timing,
                  std::move(on_batch), std::move(on_warning)) {}

std::optional<Debouncer::Clock::time_point> TreeWatcher::last_change() const {
    const auto since_epoch = state_->last_change.load(std::memory_order_relaxed);
    if (since_epoch == 0) return std::nullopt;
    return Debouncer::Clock::time_point(Debouncer::Clock::duration(since_epoch));
}

TreeWatcher::~TreeWatcher() { hub_->detach(state_.get(), state_->stop()); }

}  // namespace liveupdate::host::up
