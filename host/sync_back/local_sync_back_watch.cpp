#include "host/sync_back/local_sync_back_watch.hpp"

#include <sys/stat.h>

#include <cerrno>
#include <chrono>
#include <filesystem>

#include "common/paths.hpp"

namespace liveupdate::host::sync_back {

namespace {

std::int64_t now_ms() {
    return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now().time_since_epoch())
        .count();
}

}  // namespace

LocalSyncBackWatch::LocalSyncBackWatch(std::unique_ptr<LocalSyncBack> sync_back, const std::string &container_root,
                                       ReportFn report, up::WatchTiming timing)
    : container_root_(common::clean_path(container_root)),
      report_(std::move(report)),
      sync_back_(std::move(sync_back)) {
    const std::string sync_root = common::join_path(container_root_, "." + sync_back_->mapping().container_path());
    const auto warn = [this](const std::string &message) {
        SyncBackEvent event;
        event.kind = SyncBackEvent::Kind::refused;
        event.message = "watching the container folder: " + message;
        report_(event);
    };
    sync_back_->set_flusher([this](const SyncBackEvent &failed) { report_(failed); });
    held_ = std::make_unique<HeldReports<FolderLook>>(
        sync_back_->journal(),
        [this](const std::vector<HeldReports<FolderLook>::Held> &held) { on_forward_ended(held); });
    retrier_ = std::thread([this] { retry_deferred(); });
    watcher_ = std::make_unique<up::TreeWatcher>(
        std::vector<std::string>{sync_root}, up::WatchFilter{}, timing,
        [this](const std::vector<std::string> &paths) { on_batch(paths); }, warn);
}

LocalSyncBackWatch::~LocalSyncBackWatch() {
    {
        common::MutexLock lock(mutex_);
        stopping_ = true;
    }
    deferred_changed_.notify_all();
    retrier_.join();
    watcher_.reset();
    held_.reset();
}

void LocalSyncBackWatch::retry_deferred() {
    // The rate budget renews each second: a few looks a second find it renewed soon after.
    constexpr std::chrono::milliseconds kAgain{250};
    for (;;) {
        {
            common::MutexLock lock(mutex_);
            lock.wait(deferred_changed_, [this]() LU_REQUIRES(mutex_) { return stopping_ || !deferred_.empty(); });
            if (stopping_) return;
            lock.wait_for(deferred_changed_, kAgain, [this]() LU_REQUIRES(mutex_) { return stopping_; });
            if (stopping_) return;
        }
        on_batch({});
    }
}

std::map<std::string, SyncBackEvent> LocalSyncBackWatch::conflicts() const {
    common::MutexLock lock(mutex_);
    return sync_back_->conflicts();
}

void LocalSyncBackWatch::catch_up(const AgreedDigests &agreements) {
    std::string container_path;
    {
        common::MutexLock lock(mutex_);
        container_path = sync_back_->mapping().container_path();
    }
    const std::string folder = container_path == "/" ? container_path : container_path + "/";
    std::vector<std::string> paths;
    for (auto it = agreements.lower_bound(folder); it != agreements.end() && it->first.starts_with(folder); ++it)
        paths.push_back(common::join_path(container_root_, "." + it->first));
    // Symlinks are listed, never followed; an unreadable folder is left out (its files come when they change).
    const std::filesystem::path sync_root = common::join_path(container_root_, "." + container_path);
    std::error_code ec;
    for (auto it = std::filesystem::recursive_directory_iterator(
             sync_root, std::filesystem::directory_options::skip_permission_denied, ec);
         !ec && it != std::filesystem::recursive_directory_iterator(); it.increment(ec))
        if (!it->is_directory(ec) || it->is_symlink(ec)) paths.push_back(it->path().string());
    on_batch(paths);
}

void LocalSyncBackWatch::on_batch(const std::vector<std::string> &local_paths) {
    std::vector<SyncBackEvent> events;
    {
        common::MutexLock lock(mutex_);
        std::set<std::string> offered;
        offered.swap(deferred_);
        for (const std::string &local : local_paths) {
            const std::optional<std::string> in_container = common::child_path(container_root_, local);
            if (in_container) offered.insert("/" + (*in_container == "." ? std::string() : *in_container));
        }
        if (!local_paths.empty()) last_batch_at_ = std::chrono::steady_clock::now();
        offer(offered, events);
    }
    if (!events.empty() || !local_paths.empty()) deferred_changed_.notify_all();
    for (const SyncBackEvent &event : events) report_(event);
}

void LocalSyncBackWatch::offer(const std::set<std::string> &paths, std::vector<SyncBackEvent> &events) {
    const std::int64_t now = now_ms();
    const auto clock_now = std::chrono::steady_clock::now();
    bool held = false;
    for (const std::string &path : paths) {
        if (hold_delete(path, clock_now)) {
            deferred_.insert(path);
            held = true;
            continue;
        }
        SyncBackEvent event = sync_back_->on_container_change(path, now);
        if (event.kind == SyncBackEvent::Kind::deferred || event.again) deferred_.insert(path);
        if (event.kind == SyncBackEvent::Kind::in_flight) held_->hold(path, {}, event.agreed_before);
        if (event.kind != SyncBackEvent::Kind::ignored && event.kind != SyncBackEvent::Kind::nothing &&
            event.kind != SyncBackEvent::Kind::in_flight)
            events.push_back(std::move(event));
    }
    if (!held) deletes_held_since_.reset();
    sync_back_->end_batch();
}

void LocalSyncBackWatch::on_forward_ended(const std::vector<HeldReports<FolderLook>::Held> &held) {
    // The folder is read again now: what it holds is no look from before the forward write.
    std::set<std::string> paths;
    for (const auto &report : held) paths.insert(report.path);
    std::vector<SyncBackEvent> events;
    {
        common::MutexLock lock(mutex_);
        if (stopping_) return;
        offer(paths, events);
    }
    deferred_changed_.notify_all();
    for (const SyncBackEvent &event : events) report_(event);
}

bool LocalSyncBackWatch::hold_delete(const std::string &container_file, std::chrono::steady_clock::time_point now) {
    if (now - last_batch_at_ >= kDeleteQuiet) return false;
    if (deletes_held_since_ && now - *deletes_held_since_ >= kDeleteHold) return false;
    struct stat st {};
    const std::string in_folder = common::join_path(container_root_, "." + container_file);
    if (::lstat(in_folder.c_str(), &st) == 0 || errno != ENOENT) return false;  // not a delete
    if (!deletes_held_since_) deletes_held_since_ = now;
    return true;
}

std::unique_ptr<ContainerSyncBack> start_local_sync_back(const SyncBackTarget &target, SyncedJournals &journals,
                                                         std::shared_ptr<CameBack> came_back, SyncBackReportFn report) {
    // The journal's key as the forward sync names it: the same agreements.
    std::shared_ptr<SyncedJournal> journal =
        journals.journal(SyncedKey::of(target.live_update, target.via, target.container.id, target.container.root));
    const std::string root = std::filesystem::weakly_canonical(target.container.root).string();
    auto sync_back = std::make_unique<LocalSyncBack>(
        rules::SyncBackMapping(target.local_path, target.container_path, target.patterns), root, journal,
        rules::Limits{}, std::move(came_back));
    auto watch = std::make_unique<LocalSyncBackWatch>(std::move(sync_back), root, std::move(report));
    watch->catch_up(journal->agreements());
    return watch;
}

}  // namespace liveupdate::host::sync_back
