// The containers where lu-agent could not start, and when to try it again.
// A refusal belongs to one start of a container: a restart (docker: a new
// State.StartedAt; Kubernetes: a new container ID) may have cleared its
// cause, and so may time, so it also lapses after a bounded number of
// updates. Kept by the lu-agent driver (agent_driver.hpp).
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <unordered_map>

namespace liveupdate::agent_client {

class AgentRefusals {
public:
    // Updates that go through exec before the agent is tried again.
    static constexpr int kUpdatesBeforeRetry = 10;

    void refuse(const std::string &container_id, const std::string &started_at, std::string why);
    // Why the agent is refused for this start of the container; nullopt when it is to be
    // tried (never refused, restarted since, or the refusal's updates used up).
    // `counts_as_update`: an update spends one of the refusal's updates.
    std::optional<std::string> refusal(const std::string &container_id, const std::string &started_at,
                                       bool counts_as_update);

private:
    struct Refusal {
        std::string started_at;
        std::string why;
        int updates_left = kUpdatesBeforeRetry;
    };
    std::unordered_map<std::string, Refusal> refused_;
};

}  // namespace liveupdate::agent_client
