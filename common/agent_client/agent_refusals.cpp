#include "common/agent_client/agent_refusals.hpp"

namespace liveupdate::agent_client {

void AgentRefusals::refuse(const std::string &container_id, const std::string &started_at, std::string why) {
    refused_[container_id] = Refusal{started_at, std::move(why), kUpdatesBeforeRetry};
}

std::optional<std::string> AgentRefusals::refusal(const std::string &container_id, const std::string &started_at,
                                                  bool counts_as_update) {
    const auto it = refused_.find(container_id);
    if (it == refused_.end()) return std::nullopt;
    Refusal &r = it->second;
    if (r.started_at != started_at || r.updates_left <= 0) {
        refused_.erase(it);
        return std::nullopt;
    }
    if (counts_as_update) --r.updates_left;
    return r.why;
}

}  // namespace liveupdate::agent_client
