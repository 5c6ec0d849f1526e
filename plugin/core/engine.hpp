// The liveupdate engine: objects in, reconcile sessions out, snapshots for hot
// reload. Thread-safe: different LiveUpdates may reconcile concurrently; a
// LiveUpdate already being reconciled is refused (EngineBusy).
#pragma once

#include <atomic>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <thread>
#include <variant>
#include <vector>

#include "common/mutex.hpp"
#include "plugin/core/admission.hpp"
#include "plugin/core/dependency_index.hpp"
#include "plugin/core/object_store.hpp"
#include "plugin/core/reconcile.hpp"
#include "plugin/core/sync_targets.hpp"

namespace liveupdate {

class EngineBusy : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

struct UpsertResult {
    AdmissionResult admission;
    std::vector<std::string> due;  // LiveUpdates to reconcile because of this change
};

class Engine {
public:
    // step_version: the shape of the steps handed out (liveupdate_plugin.h): 1 one
    // update at a time, 2 every container's update of a change at once.
    explicit Engine(common::MicroTime start_time, int step_version = 1)
        : start_time_(start_time), step_version_(step_version) {}
    Engine(const Engine &) = delete;
    Engine &operator=(const Engine &) = delete;
    ~Engine();  // stops decoding what a restore left pending

    // Told (any thread) about a LiveUpdate whose restored state could not be
    // decoded after restore returned; it starts afresh. Set before restore.
    void on_restore_problem(std::function<void(const std::string &)> sink) { restore_problem_ = std::move(sink); }

    int step_version() const { return step_version_; }

    AdmissionResult validate(std::string_view object_json) const { return admit(object_json); }
    UpsertResult upsert(std::string_view object_json);
    // Unknown kinds and absent objects are not errors: nothing is due.
    std::vector<std::string> remove(std::string_view kind, const std::string &name);

    struct Begun {
        std::unique_ptr<ReconcileSession> session;
        Step step;
    };
    // Throws EngineBusy when that LiveUpdate is being reconciled.
    Begun begin(const std::string &live_update, common::MicroTime now);

    // What verify compares of a LiveUpdate, from the objects held now (core/sync_targets.hpp).
    std::variant<SyncTargets, SyncTargetsProblem> sync_targets(const std::string &live_update) const;

    // The host repaired the container (it equals the sources now, liveupdate/ext/sync_targets.h):
    // a failure its last update left (UpdateFailed) is cleared, so that the next reconcile resumes
    // live updates to it. A plan that could not be made (UpdateStopped) stays: a rebuild or its
    // cause going away clears that. nullopt: no such LiveUpdate; else whether a failure was
    // cleared. Throws EngineBusy while that LiveUpdate is being reconciled.
    std::optional<bool> container_repaired(const std::string &live_update, const std::string &container_id);

    // Throws EngineBusy while a reconcile is in progress.
    std::string snapshot() const;
    // Replaces all state; throws UnsupportedSnapshot / DecodeError / EngineBusy and then keeps the old state.
    // The LiveUpdates of a large snapshot are decoded afterwards, on a thread
    // of the engine's, or by the first call that needs one (which waits for
    // that one only): a hot reload holds reconciles for the objects alone.
    void restore(std::string_view blob);

private:
    std::shared_ptr<LiveUpdateState> state_for(const std::string &name);
    // With state.mutex held: decodes what restore left pending there.
    void settle(LiveUpdateState &state) const;
    void settle_locking(LiveUpdateState &state) const;
    void settle_in_background(std::vector<std::shared_ptr<LiveUpdateState>> states);
    void stop_settling();
    std::vector<std::string> due_for_change(const api::ApiObject &object) LU_REQUIRES_SHARED(objects_mutex_);

    mutable common::SharedMutex objects_mutex_;
    ObjectStore store_ LU_GUARDED_BY(objects_mutex_);
    DependencyIndex index_ LU_GUARDED_BY(objects_mutex_);
    common::MicroTime start_time_;
    int step_version_;
    mutable std::atomic<std::size_t> last_snapshot_size_{0};

    mutable common::Mutex live_updates_mutex_;
    std::map<std::string, std::shared_ptr<LiveUpdateState>> live_updates_ LU_GUARDED_BY(live_updates_mutex_);

    std::function<void(const std::string &)> restore_problem_;
    std::atomic<bool> stop_settling_{false};
    std::thread settler_;
};

}  // namespace liveupdate
