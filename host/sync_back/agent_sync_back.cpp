#include "host/sync_back/agent_sync_back.hpp"

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <thread>

#include "common/paths.hpp"
#include "common/sync_back/content_digest.hpp"
#include "common/utf8.hpp"
#include "host/core/plugin_message.hpp"
#include "host/sync_back/held_deletes.hpp"

namespace liveupdate::host::sync_back {
namespace {

using rules::PathState;

std::int64_t now_ms() {
    return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now().time_since_epoch())
        .count();
}

rules::ContainerRoot root_of(int32_t code) {
    switch (code) {
    case LU_ROOT_EMPTY: return {.exists = true, .empty = true};
    case LU_ROOT_HOLDS: return {.exists = true, .empty = false};
    default: return {};  // missing, or not known: deletes are held
    }
}

void each_batch(void *ctx, const lu_container_changes *batch) {
    if (batch != nullptr) static_cast<AgentSyncBack *>(ctx)->on_batch(*batch);
}

void log_line(void *ctx, int32_t level, lu_str line) {
    const auto shown = level >= LU_LOG_ERROR  ? common::LogLevel::error
                       : level == LU_LOG_WARN ? common::LogLevel::warn
                       : level == LU_LOG_INFO ? common::LogLevel::info
                                              : common::LogLevel::debug;
    (*static_cast<const AgentSyncBack::LogFn *>(ctx))(shown, std::string(line.data, line.size));
}

}  // namespace

std::vector<AgreedFile> agreed_beneath(const AgreedDigests &agreements, const std::string &container_path) {
    const std::string folder = container_path.ends_with('/') ? container_path : container_path + "/";
    std::vector<AgreedFile> out;
    for (auto it = agreements.lower_bound(folder); it != agreements.end() && it->first.starts_with(folder); ++it)
        // A digest that is not an XXH3-64 is left out: that file simply comes again.
        if (const auto hash = rules::digest_value(it->second); hash && it->first.size() > folder.size())
            out.push_back({it->first.substr(folder.size()), *hash});
    return out;
}

void AgentChangeFiles::set(const AgentChange &change, rules::ContainerRoot root) {
    change_ = &change;
    root_ = root;
}

BeneathFile AgentChangeFiles::open(const std::string &, std::uint64_t max_bytes) {
    BeneathFile out;
    if (change_ == nullptr || change_->kind == LU_CHANGE_DELETED) return out;
    const AgentChange &change = *change_;
    if (change.kind != LU_CHANGE_WRITTEN) {
        out.state = PathState::other();  // a symlink or a special file, never followed
        return out;
    }
    out.mode = static_cast<mode_t>(change.mode & 07777);
    out.size = std::max<std::uint64_t>(change.size, change.content.size());
    if (out.size > max_bytes) {
        out.state = PathState::file({});
        out.error = "too large";
        return out;
    }
    if (!change.has_content) {
        out.error = "its content did not come" + (change.note.empty() ? "" : ": " + change.note);
        return out;
    }
    // Handed over as they came (no copy, no file made for them); the digest
    // the agent claims, which the write checks the bytes against.
    out.bytes = change.content;
    out.state = PathState::file(rules::digest_text(change.hash));
    return out;
}

AgentSyncBack::AgentSyncBack(std::shared_ptr<const Updater> updater, const lu_sync_back_extension &table,
                             const SyncBackTarget &target, const std::shared_ptr<SyncedJournal> &journal,
                             std::shared_ptr<CameBack> came_back, SyncBackReportFn report, LogFn log)
    : updater_(std::move(updater)),
      table_(table),
      container_path_(target.container_path),
      report_(std::move(report)),
      log_(std::move(log)),
      files_(std::make_shared<AgentChangeFiles>()),
      sync_back_(std::make_unique<LocalSyncBack>(
          rules::SyncBackMapping(target.local_path, target.container_path, target.patterns), files_, journal,
          rules::Limits{}, std::move(came_back))) {
    sync_back_->set_flusher([this](const SyncBackEvent &failed) { report_(failed); });
    held_ = std::make_unique<HeldReports<HeldChange>>(
        journal, [this](std::vector<HeldReports<HeldChange>::Held> held) { on_forward_ended(std::move(held)); });
    const lu_container_ref container = updater::to_lu_container_ref(target.container);
    std::vector<lu_str> patterns;
    for (const std::string &p : target.patterns) patterns.push_back(abi::to_lu_str(p));
    const rules::Limits limits = sync_back_->limits();
    PluginMessage error(updater_->plugin().api().free_message);
    const lu_str root = abi::to_lu_str(target.container_path);
    int32_t rc = LU_OK;
    if (table_.struct_size >= offsetof(lu_sync_back_extension, watch_from) + sizeof(table_.watch_from) &&
        table_.watch_from != nullptr) {
        // From the agreements: what changed while no watch ran comes too.
        const std::vector<AgreedFile> agreed = agreed_beneath(journal->agreements(), target.container_path);
        std::vector<lu_agreed_file> files;
        files.reserve(agreed.size());
        for (const AgreedFile &file : agreed)
            files.push_back({sizeof(lu_agreed_file), abi::to_lu_str(file.path), file.hash});
        rc = table_.watch_from(updater_->handle(), &container, root, patterns.data(), patterns.size(),
                               limits.max_file_bytes, files.data(), files.size(), each_batch, this, log_line, &log_,
                               &watch_, error.out());
    } else {
        rc = table_.watch(updater_->handle(), &container, root, patterns.data(), patterns.size(), limits.max_file_bytes,
                          each_batch, this, log_line, &log_, &watch_, error.out());
    }
    if (rc == LU_ERR_UNSUPPORTED) throw SyncBackUnsupported(error.str());
    if (rc != LU_OK || watch_ == nullptr)
        throw std::runtime_error(error.view().empty() ? "the updater's watch failed (" + std::to_string(rc) + ")"
                                                      : error.str());
}

AgentSyncBack::~AgentSyncBack() {
    stopping_ = true;
    if (watch_ != nullptr) table_.stop(updater_->handle(), watch_);
    held_.reset();
}

std::map<std::string, SyncBackEvent> AgentSyncBack::conflicts() const {
    common::MutexLock lock(mutex_);
    return sync_back_->conflicts();
}

std::string AgentSyncBack::held_delete(const std::string &delete_path, const SyncedJournal &journal) const {
    common::MutexLock lock(mutex_);
    return held_delete_of_reported(delete_path, reported_, journal);
}

void AgentSyncBack::on_batch(const lu_container_changes &batch) {
    if (batch.ended != 0) {
        ended_ = true;
        SyncBackEvent event;
        event.kind = SyncBackEvent::Kind::refused;
        event.ended = true;
        event.message = "the container's changes stopped coming: " +
                        common::printable_path(std::string(batch.why.data, batch.why.size));
        report_(event);
        return;
    }
    std::vector<AgentChange> changes;
    changes.reserve(batch.count);
    for (std::uint64_t i = 0; i < batch.count; ++i) {
        const lu_container_change &c = batch.changes[i];
        if (c.kind == LU_CHANGE_RESCAN) continue;  // the files come again, each as it is now
        changes.push_back({std::string(c.path.data, c.path.size), c.kind, c.mode, c.size, c.hash, c.has_content != 0,
                           std::string(c.content.data, c.content.size), std::string(c.note.data, c.note.size)});
    }
    {
        common::MutexLock lock(mutex_);
        for (const AgentChange &change : changes)
            if (rules::name_refusal(change.path, sync_back_->limits()).empty())
                note_reported(container_file_of(change.path), change);
    }
    offer(std::move(changes), root_of(batch.root));
    // Over the rate limit: offered again each second, on this thread (the
    // agent holds what comes meanwhile), until done or stopped.
    for (;;) {
        {
            common::MutexLock lock(mutex_);
            if (deferred_.empty()) return;
        }
        for (int i = 0; i < 10 && !stopping_; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(100));
        if (stopping_) return;
        std::vector<AgentChange> again;
        rules::ContainerRoot root;
        {
            common::MutexLock lock(mutex_);
            again.swap(deferred_);
            root = deferred_root_;
        }
        offer(std::move(again), root);
    }
}

std::string AgentSyncBack::container_file_of(const std::string &path) const {
    return container_path_ == "/" ? "/" + path : container_path_ + "/" + path;
}

void AgentSyncBack::note_reported(const std::string &container_file, const AgentChange &change) {
    if (change.kind == LU_CHANGE_WRITTEN) {
        reported_[container_file] = rules::digest_text(change.hash);
        return;
    }
    // Deleted, or no regular file any more. What was beneath it stays: the
    // agent reports each file gone with a folder, and a folder made where our
    // symlink was may hold files reported before it (held, not lost).
    reported_.erase(container_file);
}

void AgentSyncBack::offer(std::vector<AgentChange> changes, rules::ContainerRoot root) {
    std::vector<SyncBackEvent> events;
    {
        common::MutexLock lock(mutex_);
        const std::int64_t now = now_ms();
        for (AgentChange &change : changes) judge(std::move(change), root, std::nullopt, now, events);
        sync_back_->end_batch();
    }
    for (const SyncBackEvent &event : events) report_(event);
}

void AgentSyncBack::judge(AgentChange change, rules::ContainerRoot root, const std::optional<rules::Agreed> &held_from,
                          std::int64_t now, std::vector<SyncBackEvent> &events) {
    const std::string container_file = container_file_of(change.path);
    // The agent matched the patterns: every name it sends is one it
    // claims is wanted, and a name the limits refuse is said so.
    if (std::string why = rules::name_refusal(change.path, sync_back_->limits()); !why.empty()) {
        SyncBackEvent refused;
        refused.kind = SyncBackEvent::Kind::refused;
        refused.container_path = container_file;
        refused.message = common::printable_path(container_file) + ": not brought back: " + why;
        events.push_back(std::move(refused));
        return;
    }
    files_->set(change, root);
    SyncBackEvent event = sync_back_->on_container_change(container_file, now, held_from);
    files_->set(AgentChange{}, root);
    if (event.kind == SyncBackEvent::Kind::deferred || event.again) {
        deferred_.push_back(std::move(change));
        deferred_root_ = root;
    } else if (event.kind == SyncBackEvent::Kind::in_flight) {
        // Kept, not dropped: the agent sends this change once.
        held_->hold(container_file, HeldChange{std::move(change), root}, held_from ? *held_from : event.agreed_before);
        return;
    }
    if (event.kind != SyncBackEvent::Kind::ignored && event.kind != SyncBackEvent::Kind::nothing)
        events.push_back(std::move(event));
}

void AgentSyncBack::on_forward_ended(std::vector<HeldReports<HeldChange>::Held> held) {
    if (stopping_) return;
    std::vector<SyncBackEvent> events;
    {
        common::MutexLock lock(mutex_);
        const std::int64_t now = now_ms();
        for (auto &report : held)
            judge(std::move(report.report.change), report.report.root, report.agreed_before, now, events);
        sync_back_->end_batch();
    }
    for (const SyncBackEvent &event : events) report_(event);
}

std::unique_ptr<ContainerSyncBack> start_agent_sync_back(const SyncBackTarget &target,
                                                         std::shared_ptr<const Updater> updater,
                                                         SyncedJournals &journals, std::shared_ptr<CameBack> came_back,
                                                         SyncBackReportFn report, AgentSyncBack::LogFn log) {
    const auto *table =
        updater ? static_cast<const lu_sync_back_extension *>(updater->extension(LU_SYNC_BACK_EXTENSION_ID)) : nullptr;
    constexpr std::size_t needed = offsetof(lu_sync_back_extension, stop) + sizeof(table->stop);
    if (table == nullptr || table->struct_size < needed || table->watch == nullptr || table->stop == nullptr)
        throw SyncBackUnsupported("the " + target.via + " updater cannot send a container's changes back: one-way");
    // The journal's key as the forward sync names it: the same agreements.
    std::shared_ptr<SyncedJournal> journal =
        journals.journal(SyncedKey::of(target.live_update, target.via, target.container.id, target.container.root));
    return std::make_unique<AgentSyncBack>(std::move(updater), *table, target, journal, std::move(came_back),
                                           std::move(report), std::move(log));
}

}  // namespace liveupdate::host::sync_back
