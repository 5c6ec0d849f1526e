// Sync back for a container an updater reaches through lu-agent (docker,
// kubernetes): the updater's watch (liveupdate/ext/sync_back.h) sends each
// batch of the container's changes, and each change is judged and applied
// by LocalSyncBack, the one apply path, its content handed over in memory.
// docs/sync-back.md.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "common/log_level.hpp"
#include "common/mutex.hpp"
#include "host/core/synced_journal.hpp"
#include "host/core/updater.hpp"
#include "host/sync_back/container_sync_back.hpp"
#include "host/sync_back/held_reports.hpp"
#include "host/sync_back/local_sync_back.hpp"
#include "liveupdate/ext/sync_back.h"

namespace liveupdate::host::sync_back {

// One change as the updater sent it, owned.
struct AgentChange {
    std::string path;  // relative to containerPath, unchecked
    int kind = 0;      // lu_change_kind
    std::uint32_t mode = 0;
    std::uint64_t size = 0;
    std::uint64_t hash = 0;
    bool has_content = false;
    std::string content;
    std::string note;
};

// The container's side of one change, as LocalSyncBack reads it: the
// content as it came, in memory (the one write path checks its digest), a
// symlink or special file as "other", the root as the watch last saw it.
class AgentChangeFiles final : public ContainerFiles {
public:
    // Sets the change the next open() answers for, and the root.
    void set(const AgentChange &change, rules::ContainerRoot root);
    BeneathFile open(const std::string &name, std::uint64_t max_bytes) override;
    rules::ContainerRoot sync_root() override { return root_; }

private:
    const AgentChange *change_ = nullptr;
    rules::ContainerRoot root_;
};

// A file the journal agreed on beneath a watched root (lu_agreed_file).
struct AgreedFile {
    std::string path;  // relative to the root
    std::uint64_t hash = 0;
    bool operator==(const AgreedFile &) const = default;
};

// The agreements beneath container_path, relative to it, of those whose
// digest is an XXH3-64's (the watch starts from them).
std::vector<AgreedFile> agreed_beneath(const AgreedDigests &agreements, const std::string &container_path);

class AgentSyncBack final : public ContainerSyncBack {
public:
    using LogFn = std::function<void(common::LogLevel level, const std::string &line)>;

    // Starts the updater's watch of target's container (table: the
    // updater's sync_back extension), the agreements in journal. Throws
    // SyncBackUnsupported when the container cannot be watched (one-way),
    // std::runtime_error for another failure. log: the watch's own lines.
    AgentSyncBack(std::shared_ptr<const Updater> updater, const lu_sync_back_extension &table,
                  const SyncBackTarget &target, const std::shared_ptr<SyncedJournal> &journal,
                  std::shared_ptr<CameBack> came_back, SyncBackReportFn report, LogFn log);
    AgentSyncBack(const AgentSyncBack &) = delete;
    AgentSyncBack &operator=(const AgentSyncBack &) = delete;
    ~AgentSyncBack() override;

    std::map<std::string, SyncBackEvent> conflicts() const override;
    bool ended() const override { return ended_; }
    // From the files the watch reported since it started: what the
    // container held before is not known here.
    std::string held_delete(const std::string &delete_path, const SyncedJournal &journal) const override;

    // One batch of the watch's (on its thread).
    void on_batch(const lu_container_changes &batch);

private:
    // A change held while a forward update carried its path, with the root as its batch saw it.
    struct HeldChange {
        AgentChange change;
        rules::ContainerRoot root;
    };

    // Offers each change; those over the rate limit stay in deferred_.
    void offer(std::vector<AgentChange> changes, rules::ContainerRoot root);
    // Judges one change (held_from: held while its path was carried) into events.
    void judge(AgentChange change, rules::ContainerRoot root, const std::optional<rules::Agreed> &held_from,
               std::int64_t now, std::vector<SyncBackEvent> &events) LU_REQUIRES(mutex_);
    // The changes held while a forward update carried them, judged once it ended.
    void on_forward_ended(std::vector<HeldReports<HeldChange>::Held> held);
    std::string container_file_of(const std::string &path) const;
    void note_reported(const std::string &container_file, const AgentChange &change) LU_REQUIRES(mutex_);

    std::shared_ptr<const Updater> updater_;  // keeps the plugin loaded while it watches
    const lu_sync_back_extension &table_;
    std::string container_path_;
    SyncBackReportFn report_;
    LogFn log_;
    mutable common::Mutex mutex_;
    std::shared_ptr<AgentChangeFiles> files_ LU_GUARDED_BY(mutex_);
    std::unique_ptr<LocalSyncBack> sync_back_ LU_GUARDED_BY(mutex_);
    std::vector<AgentChange> deferred_ LU_GUARDED_BY(mutex_);
    rules::ContainerRoot deferred_root_ LU_GUARDED_BY(mutex_);
    // Each regular file the watch last reported (container path → digest).
    std::map<std::string, std::string> reported_ LU_GUARDED_BY(mutex_);
    // Its thread judges what it held; stopped after the watch, before the rest.
    std::unique_ptr<HeldReports<HeldChange>> held_;
    std::atomic<bool> ended_{false};
    std::atomic<bool> stopping_{false};
    lu_change_watch *watch_ = nullptr;
};

// The sync back of a container of an updater with the sync_back extension;
// the agreements in the container's synced journal. Throws
// SyncBackUnsupported (one-way) or std::runtime_error saying why not.
std::unique_ptr<ContainerSyncBack> start_agent_sync_back(const SyncBackTarget &target,
                                                         std::shared_ptr<const Updater> updater,
                                                         SyncedJournals &journals, std::shared_ptr<CameBack> came_back,
                                                         SyncBackReportFn report, AgentSyncBack::LogFn log);

}  // namespace liveupdate::host::sync_back
