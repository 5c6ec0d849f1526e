// Runs one container update step of a reconcile: builds the archive from the
// step's copies, hands it with the deletes and runs to the updater serving the
// step's "via", and turns the updater's answer into an outcome for
// reconcile_continue.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <boost/json.hpp>

#include "common/update_step/container_update.hpp"
#include "host/core/archive_builder.hpp"
#include "host/core/forwarded_files.hpp"
#include "host/core/log.hpp"
#include "host/core/synced_journal.hpp"
#include "host/core/updater.hpp"
#include "host/core/updater_registry.hpp"

namespace liveupdate::host {

// A file that comes back which a forward update that sets the container to
// the local tree (an initial sync, a verify's repair) leaves alone
// (docs/sync-back.md): the container changed it since the two sides agreed
// (it comes back, or is a conflict), or both still hold the agreed one.
struct LeftAlone {
    std::string container_path;
    std::string local_path;          // where the update would take it from
    bool container_changed = false;  // else both hold the agreed file: nothing to carry
    bool operator==(const LeftAlone &) const = default;
};

// What a whole update (a verify's repair) did beside what it was asked.
struct WholeUpdateNotes {
    std::vector<LeftAlone> left_alone;  // what it left alone for sync back
    // It reached the updater. Not when sync back left alone all it would
    // carry: an update with nothing to copy, delete or run is not sent.
    bool sent = false;
};

// Sync back's say in one forward update (docs/sync-back.md); empty members: none.
struct ForwardSyncBack {
    // The files that come back: the synced journal agrees on the digest of each one
    // the update carries before its last bytes leave, so that the
    // container's watcher takes it for neither a change of its own nor a
    // conflict. A change's update (ForwardScope::change) also asks the
    // updater to replace or delete such a file only where the container
    // holds what both sides agreed on before it (the forward guard).
    ComesBackFn comes_back;
    // Why a delete of the update is held (it would destroy a container change
    // that comes back), or "" to go ahead.
    std::function<std::string(const std::string &delete_path, const SyncedJournal &journal)> held_delete;
    // What an update that sets the container whole leaves alone, read from
    // the container against the journal's agreements. Asked only for such
    // an update into a container synced into before (an inherited or
    // non-empty journal). Throws when the container cannot tell.
    std::function<std::vector<LeftAlone>(const update_step::ContainerUpdate &update, const SyncedJournal &journal,
                                         const LogSinkFn &log)>
        left_alone;
};

// What a forward update may overwrite in the container.
enum class ForwardScope {
    change,  // a change the developer made (a reconcile's update): as asked
    whole,   // sets the container to the local tree (a verify's repair): ForwardSyncBack::left_alone applies
};
using ForwardSyncBackFn = std::function<ForwardSyncBack(const update_step::ContainerUpdate &update)>;

class Executor {
public:
    // journals: where each update notes what it puts in and deletes from its
    // container (none: nothing is noted). sync_back: sync back's say in each
    // update (used only with journals).
    explicit Executor(const UpdaterRegistry &updaters, SyncedJournals *journals = nullptr,
                      ForwardSyncBackFn sync_back = {})
        : updaters_(updaters), journals_(journals), sync_back_(std::move(sync_back)) {}

    // Never throws for a bad update or a failing updater: those are
    // infra-failure outcomes. Log lines (archive warnings, updater output) go
    // to log, which must be thread-safe. A path the synced journal cannot take fails
    // the update.
    // shared: the archive every update of its step copies, built once
    // (shared_archive); null: the update builds its own. An initial sync's
    // scope is whole whatever scope says. notes (optional): what a whole
    // update left alone for sync back, so that a check after it does not
    // take those files for differences the update failed to repair, and
    // whether it was sent at all.
    updater::Outcome execute(const update_step::ContainerUpdate &update, const LogSinkFn &log,
                             const std::shared_ptr<const PrebuiltArchive> &shared = nullptr,
                             ForwardScope scope = ForwardScope::change, WholeUpdateNotes *notes = nullptr) const;
    // The same for an "update" object as JSON, decoded strictly
    // (common/update_step): a missing or mistyped field fails the update
    // naming its path.
    updater::Outcome execute(const boost::json::object &update, const LogSinkFn &log) const;

    // The archive of updates that all copy the same paths with the same
    // filter (one change to several replicas), built once in memory; null
    // when they differ, copy nothing, or it is large (each streams its own).
    std::shared_ptr<const PrebuiltArchive> shared_archive(
        const std::vector<const update_step::ContainerUpdate *> &updates) const;

    SyncedJournals *journals() const { return journals_; }

private:
    const UpdaterRegistry &updaters_;
    SyncedJournals *journals_;
    ForwardSyncBackFn sync_back_;
};

}  // namespace liveupdate::host
