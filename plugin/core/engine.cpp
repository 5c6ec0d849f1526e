#include "plugin/core/engine.hpp"

#include <algorithm>
#include <exception>

#include "common/mutex.hpp"
#include "plugin/core/snapshot.hpp"

namespace liveupdate {

Engine::~Engine() { stop_settling(); }

void Engine::settle(LiveUpdateState &state) const {
    if (!state.pending) return;
    const PendingEntry pending = std::move(*state.pending);
    state.pending.reset();
    try {
        DecodedEntry decoded = decode_pending(pending);
        state.monitor = std::move(decoded.monitor);
        state.status = std::move(decoded.status);
        state.entry = pending_text(pending);
    } catch (const std::exception &e) {
        // Restore has returned: nothing to refuse any more. Without its state
        // the LiveUpdate is synced afresh, as if new.
        state.monitor.reset();
        state.status.reset();
        if (restore_problem_)
            restore_problem_("LiveUpdate \"" + pending_name(pending) +
                             "\": its state in the snapshot cannot be read, it starts afresh: " + e.what());
    }
}

void Engine::settle_locking(LiveUpdateState &state) const {
    std::lock_guard lock(state.mutex);
    settle(state);
}

void Engine::settle_in_background(std::vector<std::shared_ptr<LiveUpdateState>> states) {
    stop_settling_ = false;
    settler_ = std::thread([this, states = std::move(states)] {
        for (const auto &state : states) {
            if (stop_settling_) return;
            settle_locking(*state);
        }
    });
}

void Engine::stop_settling() {
    if (!settler_.joinable()) return;
    stop_settling_ = true;
    settler_.join();
}

std::vector<std::string> Engine::due_for_change(const api::ApiObject &object) {
    if (object.kind == api::Kind::LiveUpdate) return {object.meta.name};
    if (object.kind == api::Kind::ConfigMap) {
        if (object.meta.name != api::kTriggerQueueName) return {};
        std::vector<std::pair<std::string, std::string>> manifests;
        {
            common::MutexLock lock(live_updates_mutex_);
            for (const auto &[name, state] : live_updates_) {
                if (auto lu = store_.get(api::Kind::LiveUpdate, name))
                    manifests.emplace_back(name, lu->meta.annotation(api::kAnnotationManifest));
            }
        }
        return due_for_trigger_queue(std::get<api::ConfigMap>(object.body), manifests);
    }
    return index_.referencing(object.kind, object.meta.name);
}

UpsertResult Engine::upsert(std::string_view object_json) {
    UpsertResult result;
    result.admission = admit(object_json);
    if (!result.admission.accepted) return result;
    auto object = std::make_shared<const api::ApiObject>(std::move(*result.admission.object));
    result.admission.object.reset();
    common::WriterLock lock(objects_mutex_);
    if (const auto *lu = std::get_if<api::LiveUpdate>(&object->body)) index_.set(object->meta.name, &lu->spec);
    store_.put(object);
    result.due = due_for_change(*object);
    return result;
}

std::vector<std::string> Engine::remove(std::string_view kind_name, const std::string &name) {
    const auto kind = api::kind_from_name(kind_name);
    if (!kind) return {};
    common::WriterLock lock(objects_mutex_);
    const auto existing = store_.get(*kind, name);
    if (!existing) return {};
    store_.erase(*kind, name);
    if (*kind == api::Kind::LiveUpdate) {
        index_.set(name, nullptr);
        common::MutexLock live_updates_lock(live_updates_mutex_);
        live_updates_.erase(name);  // D04; a reconcile in progress keeps its own reference
        return {name};
    }
    if (*kind == api::Kind::ConfigMap && name == api::kTriggerQueueName) {
        api::ApiObject emptied = *existing;
        emptied.body = api::ConfigMap{};
        return due_for_change(emptied);
    }
    return index_.referencing(*kind, name);
}

std::variant<SyncTargets, SyncTargetsProblem> Engine::sync_targets(const std::string &live_update) const {
    common::ReaderLock lock(objects_mutex_);
    return sync_targets_of(live_update, [this](api::Kind kind, const std::string &name)
                                            LU_REQUIRES_SHARED(objects_mutex_) { return store_.get(kind, name); });
}

std::optional<bool> Engine::container_repaired(const std::string &live_update, const std::string &container_id) {
    {
        common::ReaderLock lock(objects_mutex_);
        if (!store_.get(api::Kind::LiveUpdate, live_update)) return std::nullopt;
    }
    std::shared_ptr<LiveUpdateState> state;
    {
        common::MutexLock lock(live_updates_mutex_);
        if (auto it = live_updates_.find(live_update); it != live_updates_.end()) state = it->second;
    }
    if (!state) return false;
    SessionClaim claim = SessionClaim::try_claim(state);
    if (!claim) throw EngineBusy("LiveUpdate \"" + live_update + "\" is being reconciled");
    settle_locking(*state);
    if (!state->monitor) return false;
    bool cleared = false;
    for (auto &[key, track] : state->monitor->containers) {
        // V04: only an update's failure is repaired; UpdateStopped waits for a rebuild.
        if (key.container_id != container_id || !track.failure || track.failure->reason != "UpdateFailed") continue;
        track.failure.reset();
        cleared = true;
    }
    if (cleared) state->monitor->has_changes_to_sync = true;  // the next reconcile computes the status again
    return cleared;
}

std::shared_ptr<LiveUpdateState> Engine::state_for(const std::string &name) {
    common::MutexLock lock(live_updates_mutex_);
    auto &state = live_updates_[name];
    if (!state) state = std::make_shared<LiveUpdateState>(name);
    return state;
}

Engine::Begun Engine::begin(const std::string &live_update, common::MicroTime now) {
    auto state = state_for(live_update);
    SessionClaim claim = SessionClaim::try_claim(state);
    if (!claim) throw EngineBusy("LiveUpdate \"" + live_update + "\" is already being reconciled");
    settle_locking(*state);

    api::ObjectPtr lu;
    {
        common::ReaderLock lock(objects_mutex_);
        lu = store_.get(api::Kind::LiveUpdate, live_update);
    }
    if (!lu) {
        common::MutexLock lock(live_updates_mutex_);
        if (auto it = live_updates_.find(live_update); it != live_updates_.end() && it->second == state)
            live_updates_.erase(it);
    }
    Begun out;
    out.session = std::make_unique<ReconcileSession>(live_update, std::move(claim), start_time_, step_version_ >= 2);
    const ObjectLookup lookup = [this](api::Kind kind, const std::string &name) {
        common::ReaderLock lock(objects_mutex_);
        return store_.get(kind, name);
    };
    out.step = out.session->begin(lu, lookup, now);
    return out;
}

std::string Engine::snapshot() const {
    std::vector<api::ObjectPtr> objects;
    {
        common::ReaderLock lock(objects_mutex_);
        store_.for_each([&](const api::ObjectPtr &o) { objects.push_back(o); });
    }
    std::map<std::string, std::shared_ptr<LiveUpdateState>> states;
    {
        common::MutexLock lock(live_updates_mutex_);
        states = live_updates_;
    }
    // Each LiveUpdate stays locked until encoded, so no session can open on it
    // meanwhile, nor the engine's thread decode it.
    std::vector<std::unique_lock<std::mutex>> locks;
    std::map<std::string, EntryToWrite> views;
    for (const auto &[name, state] : states) {
        std::unique_lock lock(state->mutex);
        if (state->in_session)
            throw EngineBusy("cannot snapshot while LiveUpdate \"" + name + "\" is being reconciled");
        locks.push_back(std::move(lock));
        // One still pending since a restore is decoded first: a restore checks
        // the index, not each entry, and an entry that does not decode must
        // not pass into the next snapshot (it starts afresh instead). Unchanged
        // since its last claim, its text is copied, not written again.
        settle(*state);
        views[name] = EntryToWrite{state->monitor ? &*state->monitor : nullptr,
                                   state->status ? &*state->status : nullptr, state->entry};
    }
    std::string text = encode_snapshot(start_time_, objects, views, last_snapshot_size_);
    last_snapshot_size_ = text.size();
    return text;
}

void Engine::restore(std::string_view blob) {
    RestoredState restored = decode_snapshot_for_restore(blob);
    EngineState &restored_state = restored.state;
    std::map<std::string, std::shared_ptr<LiveUpdateState>> states;
    for (auto &[name, decoded] : restored_state.live_updates) {
        auto state = std::make_shared<LiveUpdateState>(name);
        state->monitor = std::move(decoded.monitor);
        state->status = std::move(decoded.status);
        states[name] = std::move(state);
    }
    std::vector<std::shared_ptr<LiveUpdateState>> pending;
    pending.reserve(restored.pending.size());
    for (auto &[name, p] : restored.pending) {
        auto state = std::make_shared<LiveUpdateState>(name);
        state->pending = std::move(p);
        pending.push_back(state);
        states[name] = std::move(state);
    }
    ObjectStore store;
    DependencyIndex index;
    for (auto &o : restored_state.objects) {
        if (const auto *lu = std::get_if<api::LiveUpdate>(&o->body)) index.set(o->meta.name, &lu->spec);
        store.put(o);
    }
    common::WriterLock lock(objects_mutex_);
    common::MutexLock live_updates_lock(live_updates_mutex_);
    for (const auto &[name, state] : live_updates_) {
        std::lock_guard state_lock(state->mutex);
        if (state->in_session) throw EngineBusy("cannot restore while LiveUpdate \"" + name + "\" is being reconciled");
    }
    // The LiveUpdates it still had to decode are replaced: it would only waste time on them.
    stop_settling();
    store_ = std::move(store);
    index_ = std::move(index);
    live_updates_ = std::move(states);
    start_time_ = restored_state.start_time;
    if (!pending.empty()) settle_in_background(std::move(pending));
}

}  // namespace liveupdate
