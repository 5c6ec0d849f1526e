// Sync back running for one container and sync rule (docs/sync-back.md): the
// container's changes judged and applied as they come, its open conflicts
// kept. The small interface the daemon holds them by, so that a kind of
// container plugs in with its own source of changes: the local container's
// folder watched here (LocalSyncBackWatch), lu-agent's stream for docker and
// kubernetes containers.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "host/core/synced_journal.hpp"
#include "host/sync_back/local_sync_back.hpp"
#include "liveupdate/updater.hpp"

namespace liveupdate::host::sync_back {

// One container and sync rule of a LiveUpdate whose rule has syncBack.
struct SyncBackTarget {
    std::string live_update;
    std::string via;  // updater class
    updater::ContainerRef container;
    std::string display;         // the container, for people
    std::string local_path;      // absolute, clean
    std::string container_path;  // absolute, clean
    std::vector<std::string> patterns;

    // Equal keys: the same watch (a changed rule or container is another).
    std::string key() const;
};

class ContainerSyncBack {
public:
    virtual ~ContainerSyncBack() = default;
    // The conflicts open now, by container path. Thread-safe.
    virtual std::map<std::string, SyncBackEvent> conflicts() const = 0;
    // Whether its source of changes ended (an agent session broke): the
    // daemon starts it again. Thread-safe.
    virtual bool ended() const { return false; }
    // Why a forward delete of delete_path (absolute in the container) is
    // held: a file at or beneath it that the container changed, that comes
    // back and whose digest the journal never agreed on; "" to go ahead.
    // Thread-safe.
    // A local container's folder is checked by held_delete() of
    // held_deletes.hpp instead: none here.
    virtual std::string held_delete(const std::string &, const SyncedJournal &) const { return ""; }
};

// The container cannot send its changes (its updater has no sync back, its
// agent cannot run or is too old): it stays one-way, said once.
class SyncBackUnsupported : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// Called on the sync back's own thread for everything but ignored and nothing.
using SyncBackReportFn = std::function<void(const SyncBackEvent &event)>;

// Starts sync back for a target; nullptr when its kind of container has none
// (yet). Throws SyncBackUnsupported (one-way), std::runtime_error (or
// HostError) naming what stands in the way.
using StartSyncBackFn =
    std::function<std::unique_ptr<ContainerSyncBack>(const SyncBackTarget &target, SyncBackReportFn report)>;

}  // namespace liveupdate::host::sync_back
