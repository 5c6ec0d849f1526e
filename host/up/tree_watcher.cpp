#include "host/up/tree_watcher.hpp"

#include <poll.h>
#include <sys/eventfd.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <condition_variable>
#include <cstring>
#include <mutex>
#include <set>
#include <system_error>

#include "common/builtin_ignores.hpp"
#include "common/utf8.hpp"

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

}  // namespace

struct TreeWatcher::State {
    struct Watch {
        std::string dir;
        bool recursive = false;  // part of a watched tree (else only an ancestor of a root)
    };

    std::vector<std::string> roots;
    WatchFilter filter;
    WatchTiming timing;
    BatchFn on_batch;
    WarnFn warn;
    int inotify_fd = -1;
    int stop_fd = -1;
    std::map<int, Watch> watches;
    std::map<std::string, int> wd_of_dir;
    bool degraded = false;               // the watch limit was reached: poll instead
    std::set<int> *rewatched = nullptr;  // during a rescan: the watches still in use
    Debouncer::Clock::time_point last_poll{};
    TreeSnapshot snapshot;
    Debouncer debouncer;
    std::mutex ready_mutex;
    std::condition_variable ready_cv;
    bool ready = false;
    std::set<std::string> warned_names;                 // not UTF-8: warned about once each
    std::atomic<Debouncer::Clock::rep> last_change{0};  // time_since_epoch; 0: none yet

    State(std::vector<std::string> r, WatchFilter f, WatchTiming t, BatchFn b, WarnFn w)
        : roots(std::move(r)),
          filter(std::move(f)),
          timing(t),
          on_batch(std::move(b)),
          warn(std::move(w)),
          debouncer(t.debounce, t.max_wait) {}

    ~State() {
        if (inotify_fd >= 0) ::close(inotify_fd);
        if (stop_fd >= 0) ::close(stop_fd);
    }

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
        const int wd = ::inotify_add_watch(inotify_fd, dir.c_str(), kTreeMask);
        if (wd < 0) {
            if (errno == ENOSPC || errno == ENOMEM) {
                if (!degraded && warn)
                    warn("inotify watch limit reached at " + dir +
                         ": polling the watched trees instead (raise fs.inotify.max_user_watches)");
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
        for (auto it = wd_of_dir.lower_bound(dir); it != wd_of_dir.end();) {
            if (it->first != dir && !is_under(it->first, dir)) break;
            const auto watch = watches.find(it->second);
            if (watch != watches.end() && watch->second.dir == it->first) {
                if (remove_from_kernel) ::inotify_rm_watch(inotify_fd, it->second);
                watches.erase(watch);
            }
            it = wd_of_dir.erase(it);
        }
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
                ::inotify_rm_watch(inotify_fd, it->first);
                it = watches.erase(it);
            }
        }
        TreeSnapshot now = scan_roots();
        for (const auto &path : diff_snapshots(snapshot, now)) report(path);
        snapshot = std::move(now);
    }

    void handle(const inotify_event &ev) {
        if (ev.mask & IN_Q_OVERFLOW) {
            if (warn) warn("inotify queue overflow: rescanning the watched trees");
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
        if (ev.len == 0 || ev.name[0] == '\0') {
            if ((ev.mask & (IN_DELETE_SELF | IN_MOVE_SELF)) &&
                std::find(roots.begin(), roots.end(), watch.dir) != roots.end()) {
                forget_watches_under(watch.dir, true);
                report(watch.dir);
                setup_root(watch.dir, false);
            }
            return;
        }
        const std::string path = child_of(watch.dir, ev.name);
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
        if (is_dir && vanished) forget_watches_under(path, (ev.mask & IN_MOVED_FROM) != 0);
        if (is_dir && appeared) add_tree(path, true);
        const bool complete = !is_dir && (ev.mask & (IN_CLOSE_WRITE | IN_MOVED_TO));
        report(path, complete ? Debouncer::Change::completed_write : Debouncer::Change::other);
    }

    void read_events() {
        alignas(inotify_event) char buffer[64 * 1024];
        // Bounded, so that a steady stream of events cannot starve stopping and emitting.
        for (int reads = 0; reads < 64; ++reads) {
            const ssize_t n = ::read(inotify_fd, buffer, sizeof buffer);
            if (n < 0 && errno == EINTR) continue;
            if (n <= 0) return;
            for (ssize_t off = 0; off < n;) {
                const auto *ev = reinterpret_cast<const inotify_event *>(buffer + off);
                handle(*ev);
                off += static_cast<ssize_t>(sizeof(inotify_event) + ev->len);
            }
        }
    }

    void forget_snapshot_under(const std::string &path) {
        for (auto it = snapshot.lower_bound(path); it != snapshot.end();) {
            if (it->first != path && !is_under(it->first, path)) break;
            it = snapshot.erase(it);
        }
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

    void run() {
        for (const auto &root : roots) setup_root(root, false);
        snapshot = scan_roots();
        last_poll = Debouncer::Clock::now();
        {
            std::lock_guard<std::mutex> lock(ready_mutex);
            ready = true;
        }
        ready_cv.notify_all();

        for (;;) {
            const auto now = Debouncer::Clock::now();
            int timeout_ms = -1;
            if (auto due = debouncer.deadline()) {
                const auto wait = std::chrono::ceil<std::chrono::milliseconds>(*due - now).count();
                timeout_ms = static_cast<int>(std::max<long long>(0, wait));
            }
            if (degraded) {
                const auto wait =
                    std::chrono::ceil<std::chrono::milliseconds>(last_poll + timing.poll_interval - now).count();
                const int poll_ms = static_cast<int>(std::max<long long>(0, wait));
                timeout_ms = timeout_ms < 0 ? poll_ms : std::min(timeout_ms, poll_ms);
            }
            pollfd fds[2] = {{stop_fd, POLLIN, 0}, {inotify_fd, POLLIN, 0}};
            const int r = ::poll(fds, 2, timeout_ms);
            if (r < 0 && errno != EINTR) {
                if (warn) warn(std::string("file watching stopped: poll failed: ") + std::strerror(errno));
                return;
            }
            if (fds[0].revents & POLLIN) return;
            if (fds[1].revents & POLLIN) read_events();
            if (degraded && Debouncer::Clock::now() >= last_poll + timing.poll_interval) {
                rescan(false);
                last_poll = Debouncer::Clock::now();
            }
            if (debouncer.ready(Debouncer::Clock::now())) emit();
        }
    }
};

TreeWatcher::TreeWatcher(std::vector<std::string> roots, WatchFilter filter, WatchTiming timing, BatchFn on_batch,
                         WarnFn on_warning)
    : state_(std::make_unique<State>(std::move(roots), std::move(filter), timing, std::move(on_batch),
                                     std::move(on_warning))) {
    state_->inotify_fd = ::inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
    if (state_->inotify_fd < 0) throw std::system_error(errno, std::generic_category(), "inotify_init1");
    state_->stop_fd = ::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
    if (state_->stop_fd < 0) throw std::system_error(errno, std::generic_category(), "eventfd");
    thread_ = std::thread([s = state_.get()] { s->run(); });
}

void TreeWatcher::wait_ready() {
    std::unique_lock<std::mutex> lock(state_->ready_mutex);
    state_->ready_cv.wait(lock, [&] { return state_->ready; });
}

std::optional<Debouncer::Clock::time_point> TreeWatcher::last_change() const {
    const auto since_epoch = state_->last_change.load(std::memory_order_relaxed);
    if (since_epoch == 0) return std::nullopt;
    return Debouncer::Clock::time_point(Debouncer::Clock::duration(since_epoch));
}

TreeWatcher::~TreeWatcher() {
    const std::uint64_t one = 1;
    if (::write(state_->stop_fd, &one, sizeof one) < 0) {
        // The eventfd cannot be full; nothing else can fail here.
    }
    if (thread_.joinable()) thread_.join();
}

}  // namespace liveupdate::host::up
