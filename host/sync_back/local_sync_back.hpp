// Sync back for a local container (a folder on this machine stands for the
// container's "/"): one container change judged by the two-way-safe rules
// (common/sync_back) against the agreement in the synced journal, and applied
// to the developer's localPath (beneath_files.hpp). docs/sync-back.md.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "common/sync_back/sync_back_limits.hpp"
#include "common/sync_back/sync_back_mapping.hpp"
#include "common/sync_back/sync_back_rules.hpp"
#include "host/core/synced_journal.hpp"
#include "host/sync_back/agreement_flusher.hpp"
#include "host/sync_back/beneath_files.hpp"
#include "host/sync_back/came_back.hpp"
#include "host/sync_back/written_file_systems.hpp"

namespace liveupdate::host::sync_back {

namespace rules = liveupdate::sync_back;

// What one container change did locally.
struct SyncBackEvent {
    enum class Kind {
        ignored,    // not a file the rule brings back
        nothing,    // wanted, but nothing to do (a local change: the forward sync's)
        written,    // the container's file is now the local one
        deleted,    // the local file is deleted, as in the container
        agreed,     // both sides hold the same: recorded
        conflict,   // both changed: nothing written; see conflict
        refused,    // a name, size, symlink or special file the limits refuse: nothing written
        held,       // a delete held back: the container's sync root is gone or empty
        deferred,   // over the rate limit: offer it again later
        in_flight,  // a forward update carries the path now: offer it again once that ended (agreed_before)
    };
    Kind kind = Kind::ignored;
    std::string container_path;  // absolute, in the container
    std::string local_file;      // where it lands (wanted names)
    rules::ConflictKind conflict = rules::ConflictKind::none;
    bool opens_conflict = false;  // conflict: the path had none open before
    std::string message;          // conflict, refused: what and why, naming the paths
    bool ended = false;           // refused: the source of changes ended (an agent session broke)
    bool again = false;           // refused: offered again later, as a deferred one (the local disk was full)
    // conflict: the same one the target's watch before this one held when it
    // broke (SyncBackWatches), found again: said and counted when it opened.
    bool known = false;
    // in_flight: the agreement the path's forwarding began from (nullopt: none).
    std::optional<std::string> agreed_before;
};

// The container's side of a change, as its kind of container reads it: a
// local container's folder, or what lu-agent sent (agent_sync_back.hpp).
class ContainerFiles {
public:
    virtual ~ContainerFiles() = default;
    // name: relative to containerPath, already checked; as open_beneath.
    virtual BeneathFile open(const std::string &name, std::uint64_t max_bytes) = 0;
    // The container's sync root, for "never a mass deletion".
    virtual rules::ContainerRoot sync_root() = 0;
};

class LocalSyncBack {
public:
    // container_root: the local container's folder (canonical); journal: the
    // synced journal of this LiveUpdate and container, holding the agreements.
    // came_back (optional): told before each local write and delete.
    LocalSyncBack(const rules::SyncBackMapping &mapping, const std::string &container_root,
                  std::shared_ptr<SyncedJournal> journal, rules::Limits limits = {},
                  std::shared_ptr<CameBack> came_back = nullptr);
    // The same rules and writes, the container's side read through files.
    LocalSyncBack(rules::SyncBackMapping mapping, std::shared_ptr<ContainerFiles> files,
                  std::shared_ptr<SyncedJournal> journal, rules::Limits limits = {},
                  std::shared_ptr<CameBack> came_back = nullptr);

    // Hands the pending agreements of what it wrote since to its flusher.
    ~LocalSyncBack();
    LocalSyncBack(LocalSyncBack &&) = default;
    LocalSyncBack &operator=(LocalSyncBack &&) = delete;

    // Each change's local write or delete is in place when it returns, its
    // agreement pending (seen by every later judgement); end_batch() hands
    // the batch to the flusher, which writes the agreements once the
    // batch's files are on the disk (agreement_flusher.hpp).
    // container_file (absolute container path) was created, changed or
    // deleted; now_ms: the caller's clock, for the rate limit. held_from:
    // for a report held while a forward update carried the path (in_flight),
    // the agreement that forwarding began from: a report holding it is a
    // look taken before the forward write, and changes nothing.
    SyncBackEvent on_container_change(const std::string &container_file, std::int64_t now_ms,
                                      const std::optional<rules::Agreed> &held_from = std::nullopt);

    // The changes judged since the last call are one batch: flushed together, then agreed on. Returns at once.
    void end_batch();
    // How batches are flushed, and who hears of a flush that failed (a
    // refused event, on the flusher's thread). Before the first change.
    void set_flusher(std::function<void(const SyncBackEvent &failed)> report, AgreementFlusher::FlushFn flush = {});
    // Waits until every batch ended so far is flushed and agreed on (or failed).
    void wait_settled() { flusher_->wait_settled(); }

    // The conflicts open now, by container path: each clears when a later
    // change of its path is not a conflict any more.
    const std::map<std::string, SyncBackEvent> &conflicts() const { return conflicts_; }
    const rules::SyncBackMapping &mapping() const { return mapping_; }

    const rules::Limits &limits() const { return limits_; }
    const std::shared_ptr<SyncedJournal> &journal() const { return journal_; }

private:
    // again: judged a second time, the local file having changed while the first one wrote.
    SyncBackEvent judged(const std::string &container_path, const std::string &name,
                         const std::optional<rules::Agreed> &held_from, bool again = false);
    // Agrees on digest (nullopt: the agreement dropped) once the batch is flushed.
    void agree_after_flush(const std::string &container_path, const rules::Agreed &digest);

    rules::SyncBackMapping mapping_;
    std::shared_ptr<ContainerFiles> files_;
    std::shared_ptr<SyncedJournal> journal_;
    rules::Limits limits_;
    std::shared_ptr<CameBack> came_back_;
    rules::RateBudget budget_;
    std::map<std::string, SyncBackEvent> conflicts_;
    std::set<std::string> waiting_for_room_;  // container paths refused for a full local disk: said once
    // The batch so far: what its writes and deletes reached, and its pending agreements.
    WrittenFileSystems written_;
    std::vector<std::uint64_t> tickets_;
    std::unique_ptr<AgreementFlusher> flusher_;
};

}  // namespace liveupdate::host::sync_back
