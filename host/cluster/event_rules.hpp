// What the operator tells people who read Kubernetes Events about a
// LiveUpdate (`kubectl describe lu NAME`, `kubectl get events`): a failure
// (Warning, reason and note as its status says), a recovery and a container
// restarted by an update (Normal), a refusal (Warning ObjectRefused). Pure:
// the operator feeds it each reconcile's outcome and writes what it returns
// (cluster/event_ledger.hpp counts the repeats).
#pragma once

#include <cstddef>
#include <map>
#include <string>
#include <vector>

#include <boost/json.hpp>

namespace liveupdate::host::cluster {

struct EventNote {
    bool warning = false;
    std::string reason;
    std::string note;
    std::string action;  // what was done or failed: "Update", "Restart", "Admit"
    bool operator==(const EventNote &) const = default;
};

// What a reconcile of a LiveUpdate came to, as the daemon saw it.
struct ReconcileFacts {
    boost::json::object status;          // its status afterwards
    std::size_t updates = 0;             // container updates it executed
    std::vector<std::string> restarted;  // "container C of pod P": restarted by an update that succeeded
};

// The failures a LiveUpdate's status states: `failed`, a held container
// (`waiting` other than for a container to start or a trigger), a run step
// that failed (`lastExecError`).
std::vector<EventNote> failures_in(const boost::json::object &status);

// The failures each LiveUpdate was last seen in, and what a reconcile adds:
// a failure new since the last one, or one an update made again (each such
// update is one more occurrence); Recovered when none is left; a restart.
class LiveUpdateEvents {
public:
    std::vector<EventNote> reconciled(const std::string &live_update, const ReconcileFacts &facts);
    // The LiveUpdate was refused (not served): its refusal, its failure until a reconcile says otherwise.
    EventNote refused(const std::string &live_update, const std::string &message);
    void forget(const std::string &live_update);

private:
    std::map<std::string, std::vector<EventNote>> failing_;
};

}  // namespace liveupdate::host::cluster
