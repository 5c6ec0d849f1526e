// Runs one container update step of a reconcile: builds the archive from the
// step's copies, hands it with the deletes and runs to the updater serving the
// step's "via", and turns the updater's answer into an outcome for
// reconcile_continue.
#pragma once

#include <memory>
#include <vector>

#include <boost/json.hpp>

#include "common/update_step/container_update.hpp"
#include "host/core/archive_builder.hpp"
#include "host/core/log.hpp"
#include "host/core/synced_journal.hpp"
#include "host/core/updater.hpp"
#include "host/core/updater_registry.hpp"

namespace liveupdate::host {

class Executor {
public:
    // journals: where each update notes what it puts in and deletes from its
    // container (none: nothing is noted).
    explicit Executor(const UpdaterRegistry &updaters, SyncedJournals *journals = nullptr)
        : updaters_(updaters), journals_(journals) {}

    // Never throws for a bad update or a failing updater: those are
    // infra-failure outcomes. Log lines (archive warnings, updater output) go
    // to log, which must be thread-safe. A path the record cannot take fails
    // the update.
    // shared: the archive every update of its step copies, built once
    // (shared_archive); null: the update builds its own.
    updater::Outcome execute(const update_step::ContainerUpdate &update, const LogSinkFn &log,
                             const std::shared_ptr<const PrebuiltArchive> &shared = nullptr) const;
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
};

}  // namespace liveupdate::host
