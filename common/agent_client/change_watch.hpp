// Sync back's watch of one container path on an agent session of its own
// (docs/sync-back.md): the agent is asked to watch, then a thread waits for
// its changes and hands them on in batches, until stopped or the session
// ends. Its own session, so a stream of changes never waits behind an
// update, nor an update behind a burst of changes.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "common/agent_client/agent_session.hpp"
#include "common/agent_protocol/messages.hpp"

namespace liveupdate::agent_client {

// The watched root as the agent sees it when a batch holds a delete (never a
// mass deletion: a root gone or empty deletes nothing on the host).
enum class WatchedRoot { unknown, missing, empty, holds };

class ChangeWatch {
public:
    // Each batch of changes, oldest first, on the watch's thread.
    using BatchFn = std::function<void(const std::vector<agent_protocol::ContainerChange> &changes, WatchedRoot root)>;
    // The session ended or broke: why; the last call.
    using EndFn = std::function<void(const std::string &why)>;

    // Asks session's agent to watch request.root. Throws std::runtime_error
    // saying why it does not (an agent older than protocol 7: one-way,
    // logged to `log` once) and AgentSessionBroken when the session broke.
    ChangeWatch(std::unique_ptr<AgentSession> session, const agent_protocol::WatchChanges &request,
                std::chrono::milliseconds timeout, BatchFn batch, EndFn end, const AgentSession::LineFn &log);
    ChangeWatch(const ChangeWatch &) = delete;
    ChangeWatch &operator=(const ChangeWatch &) = delete;
    // Stops the thread (at once, or within kPoll on a transport that cannot
    // be interrupted) and ends the session.
    ~ChangeWatch();

    // How often the thread looks at the stop flag while the agent is quiet,
    // when its transport cannot be interrupted. An interruptible one waits
    // in steps of kQuietWait: an idle watch then costs no wake-ups.
    static constexpr std::chrono::milliseconds kPoll{100};
    static constexpr std::chrono::milliseconds kQuietWait{60'000};
    // How long the listing of a root that had a delete may take: past it,
    // what was listed still tells whether the root holds anything.
    static constexpr std::uint32_t kRootListingMs = 2000;
    // A batch with a delete waits until the agent has been quiet this long
    // (up to kDeleteHold), so that an `rm -rf` of the whole root, sent in
    // several batches, is judged as the empty root it ends in, not as the
    // ordinary deletes of its first batches.
    static constexpr std::chrono::milliseconds kDeleteQuiet{150};
    static constexpr std::chrono::milliseconds kDeleteHold{2000};

private:
    void run();
    // Adds to changes what the agent sends until it is quiet (see kDeleteQuiet).
    void settle(std::vector<agent_protocol::ContainerChange> &changes);
    WatchedRoot root_now();

    std::unique_ptr<AgentSession> session_;
    std::string root_;
    std::chrono::milliseconds timeout_;
    BatchFn batch_;
    EndFn end_;
    std::atomic<bool> stopping_{false};
    std::thread thread_;  // last: started once the rest is set
};

}  // namespace liveupdate::agent_client
