// The updaters' lu-agent driver: one session per container, started on its
// first use (or ahead of it: prepare) and kept for the next ones, dropped
// when it ended or broke; an update through a session that breaks is sent
// again, once, through a new one (its archive read again from the source).
// Where the agent cannot run, the container is remembered with why (logged
// once) and the caller takes its exec path, until the refusal lapses
// (agent_refusals.hpp). How an agent exec is started and carried is the
// updater's: it implements AgentTarget.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>

#include "common/agent_client/agent_binary.hpp"
#include "common/agent_client/agent_refusals.hpp"
#include "common/agent_client/agent_session.hpp"
#include "common/agent_client/agent_transport.hpp"
#include "common/agent_protocol/messages.hpp"
#include "common/mutex.hpp"
#include "liveupdate/updater.hpp"

namespace liveupdate::agent_client {

// Where a session lives, as the driver keys and names it.
struct AgentPlace {
    std::string session_key;  // one session per key
    std::string container;    // a refusal is by container ...
    std::string generation;   // ... and holds for this start of it (docker: State.StartedAt; kubernetes: its ID)
    std::string shown;        // in messages: "container web (0123456789ab)", "pod ns/web-0 container app"
};

// A new session's agent runs in another container than the one meant (an
// updater that reaches containers by a name another may take since: a pod
// made again under its name). Nothing was sent through it.
class AgentInAnotherContainer : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// One container as an updater reaches it; made for one use of the driver.
class AgentTarget {
public:
    virtual ~AgentTarget() = default;
    virtual AgentPlace place() const = 0;
    // Where an agent may already lie in the container, tried before any
    // copy (kInjectedAgentPath: the webhook's, or one the container was
    // started with); "": the updater knows there is none.
    virtual std::string injected_agent() { return {}; }
    // Before a start: copies the agent in where the updater can tell it is
    // missing (docker: the archive API). Throws AgentSessionBroken saying why it could not.
    virtual void install_ahead(const AgentBinary &) {}
    // A start found nothing at the agent's path (exit code 127): copies it
    // in; "" when done, else why it could not be.
    virtual std::string install(const AgentBinary &binary) = 0;
    // Starts `command` (the agent) in the container. Throws AgentSessionBroken
    // when the container refused it; anything else goes to the driver's caller.
    virtual std::unique_ptr<AgentTransport> open(const std::string &command) = 0;
    // The agent did not start, for `why` (which this may complete with a
    // hint); exit_code: the agent exec's when its start ended with one, else
    // -1 (an install that failed is the target's own to remember). True to
    // refuse it in this container, false when the cause passes (then a
    // digest fails, to be asked again). May throw the update's own failure.
    virtual bool lasting_refusal(std::string &why, int exit_code, const updater::UpdateLog &log) = 0;
    // After a session broke: why the container's state explains it (it
    // stopped, it was removed), else "".
    virtual std::string gone_reason() { return {}; }
    // Before an update goes again through a new session (docker inspects the container again).
    virtual void refresh() {}
    // Before an update with no live session, whose stream would say the
    // container runs (a stop or restart ends it): docker inspects the container.
    virtual void confirm() {}
    // Once a new session started, before anything goes through it: throws
    // AgentInAnotherContainer when its exec reached another container than
    // the one meant (kubernetes asks the pod's container ID: its exec goes by
    // the pod's name). Asked once per session, after its start, so a
    // container replaced before it is seen.
    virtual void confirm_started() {}
    // Where this process sees the container's filesystem (docker with a
    // local engine: /proc/<State.Pid>/root), so the session can move to the
    // agent's unix socket there; "": the frames stay on the agent's stream.
    virtual std::string local_root() const { return {}; }
    // How long an update waits for an answer before asking late_reason (zero:
    // never; only the request's stall allowance holds).
    virtual std::chrono::milliseconds late_probe() const { return {}; }
    // The agent's answer is late: why the container's state explains it
    // (docker: it is paused), ending the update; "" to wait on.
    virtual std::string late_reason() { return {}; }
};

// What a digest of a container path came to (see liveupdate/ext/digest.h).
struct DigestOutcome {
    enum class Kind { ok, not_found, unavailable, stopped, failed };
    Kind kind = Kind::ok;
    std::string message;  // for all but ok and stopped
};

// Takes one entry of a digest; false: no more, thanks.
using DigestEntryFn = std::function<bool(const agent_protocol::DigestEntry &)>;

class AgentDriver {
public:
    // agent_path: the lu-agent binary (empty: found beside the plugin);
    // timeout: for starting the agent and each request's progress.
    AgentDriver(std::string agent_path, std::chrono::milliseconds timeout)
        : agent_path_(std::move(agent_path)), timeout_(timeout) {}

    // One pass of an update through a session: sets run_started before a
    // run begins (a session broken after that is not sent the update again).
    using UpdatePass = std::function<updater::Outcome(AgentStream &session, bool &run_started)>;

    // The update through the container's session, its outcome saying whether
    // the agent was injected or copied in; nullopt when the agent
    // cannot run there (then nothing was changed and the caller takes its
    // exec path). A session broken twice, or during a run, is an infra failure;
    // an answer late for a reason of the target's (late_reason), its container not running.
    std::optional<updater::Outcome> update(AgentTarget &target, const updater::UpdateLog &log, const UpdatePass &pass);

    // Digests request.path (absolute) through the container's session. Never
    // throws for the agent's failures: where it cannot run (a lasting
    // refusal), `unavailable` saying why; a start failed for a cause that
    // passes, `failed`. When each or keep_going (asked about every 100 ms while
    // the agent is silent) asks to stop, the session is ended (its agent,
    // still walking, stops as it sees its host gone), not drained.
    DigestOutcome digest(AgentTarget &target, const agent_protocol::Digest &request, const DigestEntryFn &each,
                         const updater::UpdateLog &log, const std::function<bool()> &keep_going = {});

    // Starts the container's session ahead of its first update
    // (lu_updater_api.prepare), so the first save costs what the next ones do.
    void prepare(AgentTarget &target, const updater::UpdateLog &log);

    // A session of target's own, not kept by the driver (sync back's watch:
    // change_watch.hpp); nullptr when the agent cannot run there (why noted
    // as for an update).
    std::unique_ptr<AgentSession> open_session(AgentTarget &target, const updater::UpdateLog &log) {
        updater::AgentSource source = updater::AgentSource::unknown;  // an update's outcome says it, not a watch's
        return start(target, log, source);
    }

    // How many sessions were started to replace one that ended or broke.
    std::uint64_t reconnect_count() const noexcept { return reconnects_.load(); }
    // How many sessions were started, first ones and replacements alike.
    std::uint64_t session_count() const noexcept { return sessions_.load(); }

private:
    // The session kept for one place, used by one call at a time.
    struct KeptSession {
        common::Mutex mutex;
        std::unique_ptr<AgentSession> session LU_GUARDED_BY(mutex);
        bool lost LU_GUARDED_BY(mutex) = false;  // a session ended or broke since the last one started
        // Whether the session's agent was injected or copied in (an update's outcome says it).
        updater::AgentSource source LU_GUARDED_BY(mutex) = updater::AgentSource::unknown;
    };
    class Use;

    // The refusal of the agent in this start of the container, if any.
    std::optional<std::string> refusal(const AgentPlace &place, bool counts_as_update) LU_EXCLUDES(mutex_);
    // The place's kept session (made on first use); those of containers gone
    // are let go, one other looked at per call: the updates of one change to N
    // replicas each asking N - 1 sessions, under mutex_, cost more than they did.
    std::shared_ptr<KeptSession> kept_session_for(const std::string &key) LU_EXCLUDES(mutex_);
    // Its live session, started (again) when there is none; nullptr when
    // the agent cannot run there. Hold kept.mutex.
    AgentSession *session_in(KeptSession &kept, AgentTarget &target, const updater::UpdateLog &log)
        LU_REQUIRES(kept.mutex) LU_EXCLUDES(mutex_);
    // The session ended or broke: the next one counts as a reconnect.
    static void drop_session(KeptSession &kept) LU_REQUIRES(kept.mutex);
    // A new session (source: where its agent came from) in the container
    // meant (confirm_started), or nullptr after recording why the agent
    // cannot run there. Throws AgentInAnotherContainer.
    std::unique_ptr<AgentSession> start(AgentTarget &target, const updater::UpdateLog &log,
                                        updater::AgentSource &source) LU_EXCLUDES(mutex_);
    // start()'s session, not confirmed yet.
    std::unique_ptr<AgentSession> start_unconfirmed(AgentTarget &target, const updater::UpdateLog &log,
                                                    updater::AgentSource &source) LU_EXCLUDES(mutex_);
    // A session with the agent already in the container (injected_agent), no
    // copy needed; nullptr when there is none, or (then `why` says so) it did
    // not start: another protocol version, say.
    std::unique_ptr<AgentSession> start_injected(AgentTarget &target, const std::string &path,
                                                 const AgentBinary &binary, const updater::UpdateLog &log,
                                                 std::string &why) const;
    // A session with the agent at `path`, moved to a socket in the copies'
    // folder (where the root filesystem is writable) when it can be.
    std::unique_ptr<AgentSession> start_at(AgentTarget &target, const std::string &path, const AgentBinary &binary,
                                           const updater::UpdateLog &log) const;
    void refuse(const AgentPlace &place, const std::string &why, const updater::UpdateLog &log) LU_EXCLUDES(mutex_);
    // Moves a new session to the agent's socket where the target's filesystem is local.
    void move_to_socket(AgentSession &session, const AgentTarget &target, const std::string &agent_path,
                        const updater::UpdateLog &log) const;

    std::string agent_path_;
    std::chrono::milliseconds timeout_;
    common::Mutex mutex_;
    std::map<std::string, std::shared_ptr<KeptSession>> kept_sessions_ LU_GUARDED_BY(mutex_);
    // The key kept_session_for looked at last; the next one after it is next.
    std::string last_looked_at_ LU_GUARDED_BY(mutex_);
    AgentRefusals refused_ LU_GUARDED_BY(mutex_);
    std::optional<AgentBinary> binary_ LU_GUARDED_BY(mutex_);
    std::atomic<std::uint64_t> reconnects_{0};
    std::atomic<std::uint64_t> sessions_{0};
};

}  // namespace liveupdate::agent_client
