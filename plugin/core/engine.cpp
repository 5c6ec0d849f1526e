#include "plugin/core/engine.hpp"

#include <algorithm>
#include <exception>

#include "common/mutex.hpp"
#include "plugin/core/snapshot.hpp"

namespace liveupdate {

Engine::~Engine() { stop_settling(); }

void Engine::settle(LiveUpdateSlot &slot) const {
    if (!slot.pending) return;
    const PendingSlot pending = std::move(*slot.pending);
    slot.pending.reset();
    try {
        SlotState state = decode_pending(pending);
        slot.monitor = std::move(state.monitor);
        slot.status = std::move(state.status);
        slot.entry = pending_text(pending);
    } catch (const std::exception &e) {
        // Restore has returned: nothing to refuse any more. Without its state
        // the LiveUpdate is synced afresh, as if new.
        slot.monitor.reset();
        slot.status.reset();
        if (restore_problem_)
            restore_problem_("LiveUpdate \"" + pending_name(pending) +
                             "\": its state in the snapshot cannot be read, it starts afresh: " + e.what());
    }
}

void Engine::settle_locking(LiveUpdateSlot &slot) const {
    std::lock_guard lock(slot.mutex);
    settle(slot);
}

void Engine::settle_in_background(std::vector<std::shared_ptr<LiveUpdateSlot>> slots) {
    stop_settling_ = false;
    settler_ = std::thread([this, slots = std::move(slots)] {
        for (const auto &slot : slots) {
            if (stop_settling_) return;
            settle_locking(*slot);
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
            common::MutexLock lock(slots_mutex_);
            for (const auto &[name, slot] : slots_) {
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
        common::MutexLock slots_lock(slots_mutex_);
        slots_.erase(name);  // D04; a reconcile in progress keeps its own reference
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
    std::shared_ptr<LiveUpdateSlot> slot;
    {
        common::MutexLock lock(slots_mutex_);
        if (auto it = slots_.find(live_update); it != slots_.end()) slot = it->second;
    }
    if (!slot) return false;
    SessionClaim claim = SessionClaim::try_claim(slot);
    if (!claim) throw EngineBusy("LiveUpdate \"" + live_update + "\" is being reconciled");
    settle_locking(*slot);
    if (!slot->monitor) return false;
    bool cleared = false;
    for (auto &[key, track] : slot->monitor->containers) {
        // V04: only an update's failure is repaired; UpdateStopped waits for a rebuild.
        if (key.container_id != container_id || !track.failure || track.failure->reason != "UpdateFailed") continue;
        track.failure.reset();
        cleared = true;
    }
    if (cleared) slot->monitor->has_changes_to_sync = true;  // the next reconcile computes the status again
    return cleared;
}

std::shared_ptr<LiveUpdateSlot> Engine::slot_for(const std::string &name) {
    common::MutexLock lock(slots_mutex_);
    auto &slot = slots_[name];
    if (!slot) slot = std::make_shared<LiveUpdateSlot>(name);
    return slot;
}

Engine::Begun Engine::begin(const std::string &live_update, common::MicroTime now) {
    auto slot = slot_for(live_update);
    SessionClaim claim = SessionClaim::try_claim(slot);
    if (!claim) throw EngineBusy("LiveUpdate \"" + live_update + "\" is already being reconciled");
    settle_locking(*slot);

    api::ObjectPtr lu;
    {
        common::ReaderLock lock(objects_mutex_);
        lu = store_.get(api::Kind::LiveUpdate, live_update);
    }
    if (!lu) {
        common::MutexLock lock(slots_mutex_);
        if (auto it = slots_.find(live_update); it != slots_.end() && it->second == slot) slots_.erase(it);
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
    std::map<std::string, std::shared_ptr<LiveUpdateSlot>> slots;
    {
        common::MutexLock lock(slots_mutex_);
        slots = slots_;
    }
    // Each slot stays locked until encoded, so no session can open on it
    // meanwhile, nor the engine's thread decode it.
    std::vector<std::unique_lock<std::mutex>> locks;
    std::map<std::string, SlotView> views;
    for (const auto &[name, slot] : slots) {
        std::unique_lock lock(slot->mutex);
        if (slot->in_session) throw EngineBusy("cannot snapshot while LiveUpdate \"" + name + "\" is being reconciled");
        locks.push_back(std::move(lock));
        // One still pending since a restore is decoded first: a restore checks
        // the index, not each entry, and an entry that does not decode must
        // not pass into the next snapshot (it starts afresh instead). Unchanged
        // since its last claim, its text is copied, not written again.
        settle(*slot);
        views[name] =
            SlotView{slot->monitor ? &*slot->monitor : nullptr, slot->status ? &*slot->status : nullptr, slot->entry};
    }
    std::string text = encode_snapshot(start_time_, objects, views, last_snapshot_size_);
    last_snapshot_size_ = text.size();
    return text;
}

void Engine::restore(std::string_view blob) {
    RestoredState restored = decode_snapshot_for_restore(blob);
    EngineState &state = restored.state;
    std::map<std::string, std::shared_ptr<LiveUpdateSlot>> slots;
    for (auto &[name, s] : state.slots) {
        auto slot = std::make_shared<LiveUpdateSlot>(name);
        slot->monitor = std::move(s.monitor);
        slot->status = std::move(s.status);
        slots[name] = std::move(slot);
    }
    std::vector<std::shared_ptr<LiveUpdateSlot>> pending;
    pending.reserve(restored.pending.size());
    for (auto &[name, p] : restored.pending) {
        auto slot = std::make_shared<LiveUpdateSlot>(name);
        slot->pending = std::move(p);
        pending.push_back(slot);
        slots[name] = std::move(slot);
    }
    ObjectStore store;
    DependencyIndex index;
    for (auto &o : state.objects) {
        if (const auto *lu = std::get_if<api::LiveUpdate>(&o->body)) index.set(o->meta.name, &lu->spec);
        store.put(o);
    }
    common::WriterLock lock(objects_mutex_);
    common::MutexLock slots_lock(slots_mutex_);
    for (const auto &[name, slot] : slots_) {
        std::lock_guard slot_lock(slot->mutex);
        if (slot->in_session) throw EngineBusy("cannot restore while LiveUpdate \"" + name + "\" is being reconciled");
    }
    // The slots it still had to decode are replaced: it would only waste time on them.
    stop_settling();
    store_ = std::move(store);
    index_ = std::move(index);
    slots_ = std::move(slots);
    start_time_ = state.start_time;
    if (!pending.empty()) settle_in_background(std::move(pending));
}

}  // namespace liveupdate
