// Which containers the daemon has not verified since it started, among those
// liveupdate synced into before (they have a synced journal): a restarted
// daemon verifies and repairs each once, so that what changed while it was
// down (deletes included) reaches them (issue 19). A container never synced
// is left to the LiveUpdate's own rules (initial sync or not), and so is one
// this daemon synced into first: it knows what it sent (a check of 100,000
// files right after their initial sync doubled the daemon's peak memory).
#pragma once

#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "common/mutex.hpp"
#include "host/core/synced_journal.hpp"
#include "host/verify/verify_targets.hpp"

namespace liveupdate::host::verify {

class FirstSight {
public:
    explicit FirstSight(host::SyncedJournals &journals) : journals_(journals) {}

    // Thread-safe. True when a running container of one of them has a journal an
    // earlier daemon wrote and was not checked yet.
    bool any_unchecked(const std::vector<LiveUpdateTargets> &live_updates);
    void checked(const LiveUpdateTargets &live_update);

private:
    static std::string key_of(const LiveUpdateTargets &live_update, const RunningContainer &container);

    host::SyncedJournals &journals_;
    common::Mutex mutex_;
    std::set<std::string> checked_ LU_GUARDED_BY(mutex_);
};

}  // namespace liveupdate::host::verify
