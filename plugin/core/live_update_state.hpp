// What the engine keeps for one LiveUpdate name, and the claim a reconcile
// session (or a repair) holds on it while it changes monitor and status.
#pragma once

#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include "plugin/core/api/api_object.hpp"
#include "plugin/core/monitor.hpp"
#include "plugin/core/snapshot.hpp"

namespace liveupdate {

// Everything the engine keeps for one LiveUpdate name. While a reconcile
// session is open it alone touches monitor and status.
struct LiveUpdateState {
    explicit LiveUpdateState(std::string live_update) : name(std::move(live_update)) {}

    const std::string name;
    std::mutex mutex;  // guards in_session, pending and entry
    bool in_session = false;
    // Its snapshot entry, written when the last claim on it ended (a session
    // or a repair, the only changes to monitor and status): a snapshot, which
    // hot reload takes with reconciles held, copies it. Empty: write it then.
    std::string entry;
    // Restored but not decoded yet: the engine decodes it before anyone reads the rest.
    std::optional<PendingEntry> pending;
    std::optional<Monitor> monitor;
    // The status last handed out (what the host stores); seeded from the object.
    std::optional<api::LiveUpdateStatus> status;
};

// Marks the state of a LiveUpdate as being reconciled for its lifetime.
class SessionClaim {
public:
    // Returns an empty claim when a session is already open on that LiveUpdate.
    static SessionClaim try_claim(std::shared_ptr<LiveUpdateState> state);
    SessionClaim() = default;
    SessionClaim(SessionClaim &&other) noexcept : state_(std::move(other.state_)) {}
    SessionClaim &operator=(SessionClaim &&) = delete;
    SessionClaim(const SessionClaim &) = delete;
    ~SessionClaim();
    explicit operator bool() const { return state_ != nullptr; }
    LiveUpdateState &state() const { return *state_; }

private:
    std::shared_ptr<LiveUpdateState> state_;
};

}  // namespace liveupdate
