#include "host/core/forwarded_files.hpp"

#include <exception>
#include <utility>

#include "common/paths.hpp"
#include "common/sync_back/content_digest.hpp"
#include "common/utf8.hpp"

namespace liveupdate::host {

ForwardedFiles::ForwardedFiles(std::shared_ptr<SyncedJournal> journal, ComesBackFn comes_back, const LogSinkFn &log)
    : journal_(std::move(journal)), comes_back_(std::move(comes_back)), log_(log) {}

ForwardedFiles::~ForwardedFiles() {
    std::set<std::string> begun;
    {
        const common::MutexLock lock(mutex_);
        begun.swap(begun_);
    }
    // Outside the lock: the journal tells its listeners (sync backs holding a report) here.
    for (const std::string &path : begun) journal_->forwarded(path);
}

void ForwardedFiles::before_deletes(const std::vector<std::string> &delete_paths) {
    if (!active()) return;
    const common::MutexLock lock(mutex_);
    for (const std::string &path : delete_paths) before(common::clean_path(path));
}

void ForwardedFiles::hook(EntryHooks &hooks) {
    if (!active()) return;
    hooks.before_entry = [this, before = std::move(hooks.before_entry)](const std::string &path) {
        if (before) before(path);
        if (comes_back_(path)) begin(path);
    };
    hooks.file_digest = [this](const std::string &path, const std::string &digest) {
        if (!comes_back_(path)) return;
        // An empty file's digest comes before its entry: its forwarding begins here then.
        begin(path);
        const common::MutexLock lock(mutex_);
        if (kept_.contains(path)) return;  // a rewound archive carries it again; the container kept it
        journal_->carried(path, digest);
        carried_[path].push_back(digest);
    };
}

void ForwardedFiles::begin(const std::string &path) {
    const common::MutexLock lock(mutex_);
    if (!begun_.insert(path).second) return;
    std::optional<std::string> agreed = journal_->forwarding(path);
    before_.try_emplace(path, Before{std::move(agreed), false});
}

const ForwardedFiles::Before &ForwardedFiles::before(const std::string &path) {
    if (const auto it = before_.find(path); it != before_.end()) return it->second;
    return before_.emplace(path, Before{journal_->agreed(path), journal_->holds_beneath(path)}).first->second;
}

updater::ExpectedContent ForwardedFiles::expected(std::string_view container_path) {
    using Kind = updater::ExpectedContent::Kind;
    const std::string path = common::clean_path(std::string(container_path));
    if (!active() || !comes_back_(path)) return {};
    const common::MutexLock lock(mutex_);
    const Before &found = before(path);
    if (found.agreed) {
        // An agreement that is no XXH3-64 cannot be compared at the file: that write is not guarded.
        const std::optional<std::uint64_t> digest = sync_back::digest_value(*found.agreed);
        return digest ? updater::ExpectedContent{Kind::digest, *digest} : updater::ExpectedContent{};
    }
    if (found.folder) return {};
    return {Kind::absent, 0};
}

void ForwardedFiles::restore(const std::string &path) {
    const Before &found = before(path);
    if (found.agreed)
        journal_->agree(path, *found.agreed);
    else
        journal_->forget(path);
}

void ForwardedFiles::kept(std::string_view container_path, std::string_view why) {
    const std::string path = common::clean_path(std::string(container_path));
    if (!active()) return;
    try {
        const common::MutexLock lock(mutex_);
        if (!kept_.insert(path).second) return;
        restore(path);
        if (const auto it = carried_.find(path); it != carried_.end())
            for (const std::string &digest : it->second) journal_->uncarried(path, digest);
    } catch (const std::exception &e) {
        log_(common::LogLevel::error, "Sync back: the container kept " + common::printable_path(path) +
                                          ", but the agreement from before the update cannot be restored: " + e.what());
        return;
    }
    log_(common::LogLevel::warn, "Sync back: " + common::printable_path(path) + " is left as the container holds it (" +
                                     common::printable_path(std::string(why)) +
                                     "): its change there is judged by sync back, not overwritten");
}

std::set<std::string> ForwardedFiles::kept_paths() const {
    const common::MutexLock lock(mutex_);
    return kept_;
}

void ForwardedFiles::restore_kept_deletes(const std::vector<std::string> &noted_deletes) {
    if (!active() || noted_deletes.empty()) return;
    const SyncedPaths deleted(noted_deletes.begin(), noted_deletes.end());
    const common::MutexLock lock(mutex_);
    for (const std::string &path : kept_) {
        if (!covers(deleted, path)) continue;
        journal_->add({path});
        restore(path);
    }
}

int32_t ForwardedFiles::expected_fn(void *guard_ctx, lu_str container_path, uint64_t *out_digest) {
    auto &self = *static_cast<ForwardedFiles *>(guard_ctx);
    try {
        const updater::ExpectedContent expected =
            self.expected(std::string_view(container_path.data, container_path.size));
        if (expected.kind == updater::ExpectedContent::Kind::digest && out_digest != nullptr)
            *out_digest = expected.digest;
        return static_cast<int32_t>(expected.kind);
    } catch (const std::exception &e) {
        self.log_(common::LogLevel::error, std::string("Sync back: the forward guard cannot answer: ") + e.what());
        return LU_EXPECT_ANY;
    }
}

void ForwardedFiles::kept_fn(void *guard_ctx, lu_str container_path, lu_str why) {
    auto &self = *static_cast<ForwardedFiles *>(guard_ctx);
    try {
        self.kept(std::string_view(container_path.data, container_path.size), std::string_view(why.data, why.size));
    } catch (const std::exception &e) {
        self.log_(common::LogLevel::error, std::string("Sync back: a path the container kept is lost: ") + e.what());
    }
}

}  // namespace liveupdate::host
