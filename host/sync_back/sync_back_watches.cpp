#include "host/sync_back/sync_back_watches.hpp"

#include <algorithm>
#include <exception>
#include <set>
#include <utility>

#include "host/sync_back/left_temporaries.hpp"

namespace liveupdate::host::sync_back {

std::string SyncBackTarget::key() const {
    // NUL cannot occur in a path or a pattern: the fields cannot run into each other.
    std::string key = live_update + '\0' + via + '\0' + container.id + '\0' + container.root + '\0' + local_path +
                      '\0' + container_path;
    for (const std::string &pattern : patterns) key += '\0' + pattern;
    return key;
}

namespace {

std::string what(const SyncBackTarget &target) {
    std::string patterns;
    for (const std::string &p : target.patterns) patterns += (patterns.empty() ? "" : ", ") + p;
    return "Sync back from container " + target.display + " (" + target.container_path + ": " + patterns + ") into " +
           target.local_path;
}

std::string for_people(std::chrono::milliseconds wait) {
    return wait.count() % 1000 == 0 ? std::to_string(wait.count() / 1000) + " s" : std::to_string(wait.count()) + " ms";
}

// The conflicts a target's watch held when it broke. The watch started in its
// place judges from the agreements, so it finds each one again and would say
// and count it as opened; each path is looked at only at its first event
// there (a later conflict of it is one of the new watch's own). Thread-safe.
class KnownConflicts {
public:
    explicit KnownConflicts(const std::map<std::string, SyncBackEvent> &open) {
        for (const auto &[path, event] : open) open_.emplace(path, event.conflict);
    }
    // event, marked known when it is the same conflict again.
    SyncBackEvent seen(SyncBackEvent event) {
        common::MutexLock lock(mutex_);
        const auto it = open_.find(event.container_path);
        if (it == open_.end()) return event;
        if (event.kind == SyncBackEvent::Kind::conflict && event.conflict == it->second) {
            event.known = true;
            event.opens_conflict = false;
        }
        // Deferred: not judged yet.
        if (event.kind != SyncBackEvent::Kind::deferred) open_.erase(it);
        return event;
    }

private:
    common::Mutex mutex_;
    std::map<std::string, rules::ConflictKind> open_ LU_GUARDED_BY(mutex_);
};

}  // namespace

SyncBackWatches::SyncBackWatches(StartSyncBackFn start, ReportFn report, NoteFn note, RestartTimes times)
    : start_(std::move(start)), report_(std::move(report)), note_(std::move(note)), times_(times) {
    restarter_ = std::thread([this] { restart_loop(); });
}

SyncBackWatches::~SyncBackWatches() { stop_all(); }

SyncBackWatches::Started SyncBackWatches::start(const SyncBackTarget &target,
                                                const std::map<std::string, SyncBackEvent> &known) {
    Started out;
    // A crash may have left a write's temporary files in the folder: nothing else cleans them. Once a folder:
    // a watch restarted every few seconds must not walk a large tree each time.
    bool first_of_folder = false;
    {
        common::MutexLock lock(mutex_);
        first_of_folder = swept_.insert(target.local_path).second;
    }
    if (first_of_folder) {
        const LeftTemporaries left = remove_left_temporaries(target.local_path);
        for (const std::string &path : left.removed)
            note_(target, common::LogLevel::info, what(target) + ": removed " + path + ", left by an earlier run");
        for (const std::string &error : left.errors) note_(target, common::LogLevel::warn, what(target) + ": " + error);
    }
    try {
        auto seen = known.empty() ? nullptr : std::make_shared<KnownConflicts>(known);
        out.sync_back = start_(target, [this, target, key = target.key(), seen](const SyncBackEvent &e) {
            // A break is said by the timer, with when it is tried again.
            if (e.ended)
                ended(target.live_update, key, e.message);
            else
                report_(target, seen ? seen->seen(e) : e);
        });
        out.one_way = !out.sync_back;  // its kind of container has none: nothing to say
    } catch (const SyncBackUnsupported &e) {
        // Kept without a sync back, so that it is said once, not at each reconcile.
        note_(target, common::LogLevel::info, what(target) + ": one-way: " + e.what());
        out.one_way = true;
    } catch (const std::exception &e) {
        out.error = e.what();
    }
    return out;
}

void SyncBackWatches::set(const std::string &live_update, const std::vector<SyncBackTarget> &targets) {
    std::set<std::string> wanted;
    for (const SyncBackTarget &target : targets) wanted.insert(target.key());
    std::vector<std::shared_ptr<Running>> stopped;
    std::vector<const SyncBackTarget *> fresh;
    std::vector<std::shared_ptr<Running>> down;  // wanted, not running: tried now too
    {
        common::MutexLock lock(mutex_);
        if (stopping_) return;
        const auto it = running_.find(live_update);
        if (it != running_.end()) {
            for (auto target = it->second.begin(); target != it->second.end();) {
                if (wanted.contains(target->first)) {
                    if (!target->second->sync_back && !target->second->one_way) down.push_back(target->second);
                    ++target;
                    continue;
                }
                why_ended_.erase(target->first);
                stopped.push_back(std::move(target->second));
                target = it->second.erase(target);
            }
            if (it->second.empty()) running_.erase(it);
        }
        std::set<std::string> seen;
        for (const SyncBackTarget &target : targets) {
            const std::string key = target.key();
            const auto of_it = running_.find(live_update);
            if ((of_it == running_.end() || !of_it->second.contains(key)) && seen.insert(key).second)
                fresh.push_back(&target);
        }
    }
    // Started and stopped outside the lock: a watcher's thread reports
    // through callbacks that may ask for conflicts.
    std::vector<SyncBackTarget> ended;
    ended.reserve(stopped.size());
    for (const auto &running : stopped) ended.push_back(running->target);
    stopped.clear();  // each stops here, or when conflicts() lets go of it
    for (const SyncBackTarget &target : ended) note_(target, common::LogLevel::info, what(target) + ": stopped");
    // A reconcile may mean its container is back: not waiting for the timer.
    for (const auto &running : down) try_again(live_update, running);
    std::vector<std::shared_ptr<Running>> started;
    for (const SyncBackTarget *target : fresh) {
        auto running = std::make_shared<Running>();
        running->target = *target;
        Started s = start(*target);
        running->sync_back = std::move(s.sync_back);
        running->one_way = s.one_way;
        if (running->sync_back)
            note_(*target, common::LogLevel::info, what(*target) + ": started");
        else if (!s.one_way)
            note_(*target, common::LogLevel::warn,
                  what(*target) + ": cannot start: " + s.error + "; tried again in " + for_people(times_.first) +
                      ", then less and less often");
        started.push_back(std::move(running));
    }
    if (started.empty()) return;
    std::vector<std::shared_ptr<Running>> dropped;  // let go of outside the lock
    common::MutexLock lock(mutex_);
    if (stopping_) {
        dropped.swap(started);
        return;
    }
    const Clock::time_point now = Clock::now();
    Targets &of_it = running_[live_update];
    for (auto &running : started) {
        running->started = now;
        running->retry_at = now + times_.first;
        running->wait = running->sync_back ? times_.first : std::min(2 * times_.first, times_.most);
        const std::string key = running->target.key();
        if (of_it.contains(key))
            dropped.push_back(std::move(running));  // another call started it meanwhile
        else
            of_it.emplace(key, std::move(running));
    }
    // A down one, or one whose changes already stopped: the timer looks.
    woken_ = true;
    woken_cv_.notify_one();
}

void SyncBackWatches::ended(const std::string &live_update, const std::string &key, const std::string &why) {
    common::MutexLock lock(mutex_);
    const auto it = running_.find(live_update);
    // One being stopped says so too: nothing to start again.
    if (it == running_.end() || !it->second.contains(key)) return;
    why_ended_[key] = why;
    woken_ = true;
    woken_cv_.notify_one();
}

void SyncBackWatches::restart_loop() {
    common::MutexLock lock(mutex_);
    while (!stopping_) {
        const Clock::time_point now = Clock::now();
        Clock::time_point next = Clock::time_point::max();
        std::vector<std::shared_ptr<Running>> broke;  // ended: let go of outside the lock
        std::vector<std::pair<SyncBackTarget, std::string>> lines;
        std::vector<std::pair<std::string, std::shared_ptr<Running>>> due;
        for (auto &[live_update, targets] : running_)
            for (auto &[key, running] : targets) {
                if (running->sync_back && running->sync_back->ended()) {
                    // Ran long enough: a break of its own, not the last try's again.
                    const std::chrono::milliseconds wait =
                        now - running->started >= times_.healthy ? times_.first : running->wait;
                    auto down = std::make_shared<Running>();
                    down->target = running->target;
                    down->retry_at = now + wait;
                    down->wait = std::min(2 * wait, times_.most);
                    down->last_conflicts = running->sync_back->conflicts();
                    auto why = why_ended_.extract(key);
                    lines.emplace_back(running->target, what(running->target) + ": " +
                                                            (why ? why.mapped() : "its changes stopped coming") +
                                                            "; tried again in " + for_people(wait));
                    broke.push_back(std::exchange(running, std::move(down)));
                }
                if (running->one_way || running->sync_back) continue;
                if (running->retry_at <= now)
                    due.emplace_back(live_update, running);
                else
                    next = std::min(next, running->retry_at);
            }
        if (broke.empty() && due.empty()) {
            woken_ = false;
            const auto woken = [&]() LU_REQUIRES(mutex_) { return woken_ || stopping_; };
            if (next == Clock::time_point::max())
                lock.wait(woken_cv_, woken);
            else
                lock.wait_until(woken_cv_, next, woken);
            continue;
        }
        lock.unlock();
        broke.clear();  // their sessions ended: let go of here
        for (const auto &[target, line] : lines) note_(target, common::LogLevel::warn, line);
        for (const auto &[live_update, down] : due) try_again(live_update, down);
        lock.lock();
    }
}

void SyncBackWatches::try_again(const std::string &live_update, const std::shared_ptr<Running> &down) {
    auto again = std::make_shared<Running>();
    again->target = down->target;
    std::map<std::string, SyncBackEvent> known;
    {
        common::MutexLock lock(mutex_);
        known = down->last_conflicts;
    }
    Started s = start(again->target, known);
    again->sync_back = std::move(s.sync_back);
    again->one_way = s.one_way;
    std::shared_ptr<Running> dropped;  // let go of outside the lock
    {
        common::MutexLock lock(mutex_);
        const Clock::time_point now = Clock::now();
        again->started = now;
        again->retry_at = now + down->wait;
        again->wait = again->sync_back ? down->wait : std::min(2 * down->wait, times_.most);
        if (!again->sync_back) again->last_conflicts = down->last_conflicts;
        const auto of_it = running_.find(live_update);
        const std::string key = again->target.key();
        const auto it = of_it == running_.end() ? Targets::iterator{} : of_it->second.find(key);
        if (stopping_ || of_it == running_.end() || it == of_it->second.end() || it->second != down) {
            dropped = std::move(again);  // stopped, changed or started meanwhile
        } else {
            it->second = again;
            // One whose changes already stopped: the timer looks.
            woken_ = true;
            woken_cv_.notify_one();
        }
    }
    if (dropped) return;
    // Each try that fails is not said: the break was, once.
    if (s.error.empty())
        note_(down->target, common::LogLevel::info, what(down->target) + ": started");
    else
        note_(down->target, common::LogLevel::debug,
              what(down->target) + ": cannot start yet: " + s.error + "; tried again in " + for_people(down->wait));
}

bool SyncBackWatches::running(const std::string &live_update) const {
    common::MutexLock lock(mutex_);
    return running_.contains(live_update);
}

std::vector<OpenConflict> SyncBackWatches::conflicts(const std::string &live_update) const {
    std::vector<std::shared_ptr<Running>> of_it;
    std::vector<OpenConflict> out;
    {
        common::MutexLock lock(mutex_);
        const auto it = running_.find(live_update);
        if (it == running_.end()) return {};
        for (const auto &[key, running] : it->second)
            if (running->sync_back)
                of_it.push_back(running);
            else
                for (const auto &[path, event] : running->last_conflicts)
                    out.push_back({running->target.display, event});
    }
    // Asked outside the lock: a watcher's thread reports under its own.
    for (const auto &running : of_it)
        for (auto &[path, event] : running->sync_back->conflicts())
            out.push_back({running->target.display, std::move(event)});
    return out;
}

std::string SyncBackWatches::held_delete(const std::string &live_update, const std::string &container_id,
                                         const std::string &delete_path, const SyncedJournal &journal) const {
    std::vector<std::shared_ptr<Running>> of_it;
    {
        common::MutexLock lock(mutex_);
        const auto it = running_.find(live_update);
        if (it == running_.end()) return "";
        for (const auto &[key, running] : it->second)
            if (running->sync_back && running->target.container.id == container_id) of_it.push_back(running);
    }
    for (const auto &running : of_it)
        if (std::string why = running->sync_back->held_delete(delete_path, journal); !why.empty()) return why;
    return "";
}

void SyncBackWatches::stop_all() {
    std::map<std::string, Targets> all;  // let go of after the timer stopped, outside the lock
    {
        common::MutexLock lock(mutex_);
        stopping_ = true;
        woken_cv_.notify_all();
        all.swap(running_);
        why_ended_.clear();
    }
    if (restarter_.joinable()) restarter_.join();
}

}  // namespace liveupdate::host::sync_back
