// `lu-host verify` inside the daemon: digests each sync target in each
// running container through its updater's LU_DIGEST_EXTENSION_ID, compares
// it with the local tree (verify/tree_compare.hpp) and, when asked, sends
// what differs through the executor (deletes, then copies) and verifies again.
#pragma once

#include <atomic>
#include <chrono>
#include <functional>
#include <string>
#include <vector>

#include <boost/json.hpp>

#include "host/core/executor.hpp"
#include "host/core/log.hpp"
#include "host/core/updater_registry.hpp"
#include "host/verify/tree_compare.hpp"
#include "host/verify/verify_targets.hpp"

namespace liveupdate::host::verify {

struct ContainerReport {
    std::string container;  // its display name
    std::string error;      // why it could not be verified (or repaired)
    Differences found;
    bool repaired = false;  // a repair was sent
    Differences remaining;  // verified again after the repair
    std::string id;         // the container's ID
    bool yielded = false;   // cut short for a change of the LiveUpdate: to be checked again
    // What a repair left on purpose for sync back (the container changed it
    // since both sides last agreed: it comes back, or is a conflict), not
    // counted in remaining. When that was all it would mend, nothing was
    // sent (repaired stays false) and these are all found.
    std::vector<Difference> left_for_sync_back;
    bool clean() const {
        if (!error.empty()) return false;
        return repaired ? remaining.empty() : found.count() == left_for_sync_back.size();
    }
};

struct LiveUpdateReport {
    std::string name;
    std::string error;  // why it could not be verified at all
    std::vector<ContainerReport> containers;
    bool clean() const;
    bool yielded() const;  // a container's check was cut short for a change
};

// {"name", "error"?, "clean", "containers": [{"container", "error"?, "missing": [...], "extra": [...],
//  "different": [{"path", "why"}], "unsynced": [...], "repaired"?, "remaining"?: {"missing", "extra", "different",
//  "unsynced"}, "leftForSyncBack"?: [...]}]}
boost::json::value to_json(const LiveUpdateReport &report);

// One line per difference ("missing /app/a.txt"), then per unsynced path, at most `limit`, then "... and N more".
std::vector<std::string> difference_lines(const Differences &differences, std::size_t limit);

class Verifier {
public:
    Verifier(const host::UpdaterRegistry &updaters, const host::Executor &executor)
        : updaters_(updaters), executor_(executor) {}

    // all: every LiveUpdate's targets, so that nested targets of others are
    // left to them. log: the LiveUpdate's log (updater lines and the repair's).
    // The executor's synced journal tells extra paths from the app's own
    // (unsynced), which the repair deletes only when delete_extra.
    // The digests of one call, the repair's check included, share a time
    // budget (tree_digest::kDefaultMaxTime): past it, what is left is
    // reported as not verified. change_waiting (optional) tells that an
    // update of the LiveUpdate waits for this verify: its digests stop within
    // moments and what is left is reported as not verified (a change came
    // in), so that a save waits for no verify, only for a repair under way.
    LiveUpdateReport verify(const LiveUpdateTargets &live_update, const std::vector<LiveUpdateTargets> &all,
                            bool repair, const host::LogSinkFn &log, bool delete_extra = false,
                            const std::function<bool()> &change_waiting = {}) const;

    // Ends verifies in progress soon (their digests stop; the reports say
    // why), and every later one at once: the daemon is stopping.
    void cancel() { cancelled_ = true; }

private:
    using Clock = std::chrono::steady_clock;

    // The differences of every target in the container; throws std::runtime_error (or HostError) saying why it cannot
    // tell.
    Differences compare(const LiveUpdateTargets &live_update, const std::vector<LiveUpdateTargets> &all,
                        const RunningContainer &container, const host::LogSinkFn &log, Clock::time_point deadline,
                        const std::function<bool()> &change_waiting) const;

    const host::UpdaterRegistry &updaters_;
    const host::Executor &executor_;
    std::atomic<bool> cancelled_{false};
};

}  // namespace liveupdate::host::verify
