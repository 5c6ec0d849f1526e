#include "plugin/core/status.hpp"

namespace liveupdate {

api::LiveUpdateStateFailed create_failed_state(const api::LiveUpdateStatus &previous, std::string reason,
                                               std::string message, common::MicroTime now) {
    api::LiveUpdateStateFailed failed{std::move(reason), std::move(message), now};
    if (previous.failed && previous.failed->reason == failed.reason)
        failed.last_transition_time = previous.failed->last_transition_time;
    return failed;
}

}  // namespace liveupdate
