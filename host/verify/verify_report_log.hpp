// What a LiveUpdate's log says of a verify's report, per container: in
// sync (debug), differences found and what a repair left, and the files
// left for sync back. An open conflict is found again at every check: its
// "left for sync back" line is said when the files left change, at debug
// otherwise, so a periodic check does not repeat it (docs/sync-back.md).
#pragma once

#include <map>
#include <set>
#include <string>
#include <utility>

#include "common/mutex.hpp"
#include "host/core/log.hpp"
#include "host/verify/verifier.hpp"

namespace liveupdate::host::verify {

// The files each container's checks last said were left for sync back. Thread-safe.
class LeftForSyncBackSaid {
public:
    // Notes what a check of container (of live_update) left; whether that
    // differs from what was last said there (then it is said, at info).
    bool changed(const std::string &live_update, const std::string &container, const ContainerReport &report);

private:
    common::Mutex mutex_;
    std::map<std::pair<std::string, std::string>, std::set<std::string>> said_ LU_GUARDED_BY(mutex_);
};

// asked: a developer's own `lu-host verify`, which says every line at its level.
void log_verify_report(const LiveUpdateReport &report, const std::string &reason, const LogSinkFn &log,
                       LeftForSyncBackSaid &said, bool asked);

}  // namespace liveupdate::host::verify
