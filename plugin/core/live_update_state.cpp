#include "plugin/core/live_update_state.hpp"

#include <exception>

namespace liveupdate {

SessionClaim SessionClaim::try_claim(std::shared_ptr<LiveUpdateState> state) {
    std::lock_guard lock(state->mutex);
    SessionClaim claim;
    if (state->in_session) return claim;
    state->in_session = true;
    claim.state_ = std::move(state);
    return claim;
}

SessionClaim::~SessionClaim() {
    if (!state_) return;
    std::lock_guard lock(state_->mutex);
    state_->in_session = false;
    try {
        const EntryToWrite view{state_->monitor ? &*state_->monitor : nullptr,
                                state_->status ? &*state_->status : nullptr};
        state_->entry = snapshot_entry(state_->name, view);
    } catch (const std::exception &) {
        state_->entry.clear();  // out of memory: the next snapshot writes it instead
    }
}

}  // namespace liveupdate
