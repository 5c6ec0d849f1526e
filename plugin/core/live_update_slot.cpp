#include "plugin/core/live_update_slot.hpp"

#include <exception>

namespace liveupdate {

SessionClaim SessionClaim::try_claim(std::shared_ptr<LiveUpdateSlot> slot) {
    std::lock_guard lock(slot->mutex);
    SessionClaim claim;
    if (slot->in_session) return claim;
    slot->in_session = true;
    claim.slot_ = std::move(slot);
    return claim;
}

SessionClaim::~SessionClaim() {
    if (!slot_) return;
    std::lock_guard lock(slot_->mutex);
    slot_->in_session = false;
    try {
        const SlotView view{slot_->monitor ? &*slot_->monitor : nullptr, slot_->status ? &*slot_->status : nullptr};
        slot_->entry = snapshot_entry(slot_->name, view);
    } catch (const std::exception &) {
        slot_->entry.clear();  // out of memory: the next snapshot writes it instead
    }
}

}  // namespace liveupdate
