#include "host/sync_back/sync_back_watches.hpp"

#include <exception>

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

}  // namespace

SyncBackWatches::SyncBackWatches(StartSyncBackFn start, ReportFn report, NoteFn note)
    : start_(std::move(start)), report_(std::move(report)), note_(std::move(note)) {}

SyncBackWatches::~SyncBackWatches() { stop_all(); }

void SyncBackWatches::set(const std::string &live_update, const std::vector<SyncBackTarget> &targets) {
    std::map<std::string, std::shared_ptr<Running>> kept;
    std::map<std::string, std::shared_ptr<Running>> stopped;
    {
        common::MutexLock lock(mutex_);
        auto it = running_.find(live_update);
        if (it != running_.end()) stopped.swap(it->second);
        for (const SyncBackTarget &target : targets) {
            auto same = stopped.find(target.key());
            // One whose changes stopped coming (its session broke) starts again.
            if (same == stopped.end() || (same->second->sync_back && same->second->sync_back->ended())) continue;
            kept.insert(stopped.extract(same));
        }
    }
    // Started and stopped outside the lock: a watcher's thread reports
    // through callbacks that may ask for conflicts.
    std::vector<SyncBackTarget> ended;
    ended.reserve(stopped.size());
    for (const auto &[key, running] : stopped) ended.push_back(running->target);
    stopped.clear();  // each stops here, or when conflicts() lets go of it
    for (const SyncBackTarget &target : ended) note_(target, common::LogLevel::info, what(target) + ": stopped");
    for (const SyncBackTarget &target : targets) {
        const std::string key = target.key();
        if (kept.contains(key)) continue;
        auto running = std::make_shared<Running>();
        running->target = target;
        try {
            running->sync_back = start_(target, [this, target](const SyncBackEvent &e) { report_(target, e); });
        } catch (const SyncBackUnsupported &e) {
            // Kept without a sync back, so that it is said once, not at each reconcile.
            note_(target, common::LogLevel::info, what(target) + ": one-way: " + e.what());
            kept.emplace(key, std::move(running));
            continue;
        } catch (const std::exception &e) {
            note_(target, common::LogLevel::warn, what(target) + ": cannot start: " + e.what());
            continue;
        }
        if (!running->sync_back) continue;
        note_(target, common::LogLevel::info, what(target) + ": started");
        kept.emplace(key, std::move(running));
    }
    common::MutexLock lock(mutex_);
    if (kept.empty())
        running_.erase(live_update);
    else
        running_[live_update] = std::move(kept);
}

bool SyncBackWatches::running(const std::string &live_update) const {
    common::MutexLock lock(mutex_);
    return running_.contains(live_update);
}

std::vector<OpenConflict> SyncBackWatches::conflicts(const std::string &live_update) const {
    std::vector<std::shared_ptr<Running>> of_it;
    {
        common::MutexLock lock(mutex_);
        const auto it = running_.find(live_update);
        if (it == running_.end()) return {};
        for (const auto &[key, running] : it->second) of_it.push_back(running);
    }
    std::vector<OpenConflict> out;
    for (const auto &running : of_it)
        if (running->sync_back)
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
    std::map<std::string, std::map<std::string, std::shared_ptr<Running>>> all;
    {
        common::MutexLock lock(mutex_);
        all.swap(running_);
    }
}

}  // namespace liveupdate::host::sync_back
