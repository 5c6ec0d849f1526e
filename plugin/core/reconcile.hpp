// One reconcile of one LiveUpdate as a step machine (Tilt's Reconcile,
// maybeSync and applyInternal): it hands out one container update at a time
// and continues with the outcome the host reports, so updates stay
// sequential and stop at the first infrastructure failure.
#pragma once

#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "plugin/core/api/api_object.hpp"
#include "plugin/core/containers.hpp"
#include "plugin/core/dependencies.hpp"
#include "plugin/core/monitor.hpp"
#include "plugin/core/step.hpp"

namespace liveupdate {

// Everything the engine keeps for one LiveUpdate name. While a reconcile
// session is open it alone touches monitor and status.
struct LiveUpdateSlot {
    std::mutex mutex;  // guards in_session
    bool in_session = false;
    std::optional<Monitor> monitor;
    // The status last handed out (what the host stores); seeded from the object.
    std::optional<api::LiveUpdateStatus> status;
};

// Marks a slot as being reconciled for its lifetime.
class SessionClaim {
public:
    // Returns an empty claim when a session is already open on the slot.
    static SessionClaim try_claim(std::shared_ptr<LiveUpdateSlot> slot);
    SessionClaim() = default;
    SessionClaim(SessionClaim &&other) noexcept : slot_(std::move(other.slot_)) {}
    SessionClaim &operator=(SessionClaim &&) = delete;
    SessionClaim(const SessionClaim &) = delete;
    ~SessionClaim();
    explicit operator bool() const { return slot_ != nullptr; }
    LiveUpdateSlot &slot() const { return *slot_; }

private:
    std::shared_ptr<LiveUpdateSlot> slot_;
};

class ReconcileSession {
public:
    ReconcileSession(std::string name, SessionClaim claim, common::MicroTime start_time);

    // lu: the LiveUpdate object, null when it does not exist (D04).
    Step begin(const api::ObjectPtr &lu, const ObjectLookup &lookup, common::MicroTime now);
    // Continues after the update step that was last handed out.
    Step resume(const Outcome &outcome, common::MicroTime now);
    // Gives up a pending update as if it failed; the status is not committed.
    void abandon();

    bool awaiting_outcome() const { return pending_.has_value(); }
    bool done() const { return done_; }

private:
    struct Pending {
        ContainerKey key;
        ContainerRef ref;
        std::string display_name;
        common::MicroTime new_high_water_mark;
        common::MicroTime new_low_water_mark;
    };

    Step handle_failure(api::LiveUpdateStateFailed failed);
    Step start_sync();
    Step advance();
    // Handles one container; returns an update step when it needs one.
    std::optional<Step> visit(const SelectedContainer &sc);
    // C07: says once per batch of changes that they wait for the failure to clear.
    void report_skipped_changes(ContainerTrack &track, const std::string &display);
    bool plannable_again(const ContainerTrack &track) const;
    common::MicroTime synced_through(const ContainerTrack &track) const;
    // Merges one container's result; returns true when the visit must stop.
    bool merge_container(api::LiveUpdateStatus one, bool files_applied, const ContainerKey &key,
                         common::MicroTime new_high_water_mark, common::MicroTime new_low_water_mark);
    Step finish_sync();
    Step done_step(const api::LiveUpdateStatus &status, bool changed);
    Step update_step(ContainerUpdate update);
    void log(common::LogLevel level, std::string text);

    std::string name_;
    SessionClaim claim_;
    LiveUpdateSlot *slot_;
    common::MicroTime start_time_;
    common::MicroTime now_;
    bool commit_ = true;
    bool done_ = false;

    api::ObjectPtr lu_object_;
    const api::LiveUpdate *lu_ = nullptr;
    std::string manifest_;
    api::LiveUpdateStatus previous_;  // the status before this reconcile

    SelectedResource resource_;
    std::size_t next_container_ = 0;
    bool waiting_on_trigger_ = false;
    api::LiveUpdateStatus status_;
    bool update_event_dispatched_ = false;
    std::string terminated_pod_name_;
    bool any_files_to_sync_ = false;
    std::optional<Pending> pending_;

    std::vector<LogLine> log_;
    std::vector<UpdateEvent> events_;
};

}  // namespace liveupdate
