#include "common/agent_client/agent_driver.hpp"

#include <algorithm>
#include <cerrno>

#include "common/agent_client/agent_apply.hpp"

namespace liveupdate::agent_client {
namespace {

using updater::Outcome;
using updater::UpdateLog;

constexpr int kExitNotFound = 127;

// The agent's stderr as lines of the update in progress's log.
AgentSession::LineFn stderr_to(const UpdateLog &log) {
    return [log](std::string_view line) { log(LU_LOG_INFO, "lu-agent: " + std::string(line)); };
}

// An answer late for a reason the target's state gives (late_reason): the
// session is out of step, its answers to come once the cause passes.
class LateAnswerExplained : public AgentSessionBroken {
public:
    using AgentSessionBroken::AgentSessionBroken;
};

// The session's answers; each time one is `probe` late, asks the target why
// before the stall allowance runs out.
class LateAnswerWatch final : public AgentStream {
public:
    LateAnswerWatch(AgentStream &session, std::chrono::milliseconds probe, AgentTarget &target)
        : session_(session), probe_(probe), target_(target) {}

    void send(std::string_view frames, Clock::time_point deadline) override { session_.send(frames, deadline); }
    std::uint32_t protocol_version() const noexcept override { return session_.protocol_version(); }
    bool take_unguarded_notice() noexcept override { return session_.take_unguarded_notice(); }

    agent_protocol::Frame receive(Clock::time_point deadline) override {
        for (;;) {
            const auto probe = Clock::now() + probe_;
            if (deadline <= probe) return session_.receive(deadline);
            try {
                return session_.receive(probe);
            } catch (const AgentAnswerLate &) {
                // Late, not broken: the target's state may say why.
            }
            if (auto why = target_.late_reason(); !why.empty()) throw LateAnswerExplained(why);
        }
    }

private:
    AgentStream &session_;
    std::chrono::milliseconds probe_;
    AgentTarget &target_;
};

}  // namespace

// A use of a kept session (an update, a digest, a preparation): holds it, and when it
// ends the session's stderr stops going to its log.
class LU_SCOPED_CAPABILITY AgentDriver::Use {
public:
    explicit Use(KeptSession &kept) LU_ACQUIRE(kept.mutex) : kept_(kept), hold_(kept.mutex) {}
    Use(const Use &) = delete;
    Use &operator=(const Use &) = delete;
    ~Use() LU_RELEASE() {
        if (kept_.session) kept_.session->route_stderr(nullptr);
    }

private:
    KeptSession &kept_;
    common::MutexLock hold_;
};

void AgentDriver::move_to_socket(AgentSession &session, const AgentTarget &target, const std::string &agent_path,
                                 const UpdateLog &log) const {
    const std::string root = target.local_root();
    if (root.empty()) return;
    const std::string agent_dir = agent_path.substr(0, std::max<std::size_t>(agent_path.rfind('/'), 1));
    if (const auto why = session.move_to_socket(root, agent_dir, timeout_); !why.empty())
        log(LU_LOG_DEBUG, "lu-agent in " + target.place().shown + " stays on its exec stream: " + why);
}

std::optional<std::string> AgentDriver::refusal(const AgentPlace &place, bool counts_as_update) {
    common::MutexLock lock(mutex_);
    return refused_.refusal(place.container, place.generation, counts_as_update);
}

void AgentDriver::refuse(const AgentPlace &place, const std::string &why, const UpdateLog &log) {
    {
        common::MutexLock lock(mutex_);
        refused_.refuse(place.container, place.generation, why);
    }
    log(LU_LOG_WARN,
        "lu-agent cannot run in " + place.shown + ": " + why + "; updating it through one exec per update instead");
}

std::shared_ptr<AgentDriver::KeptSession> AgentDriver::kept_session_for(const std::string &key) {
    common::MutexLock lock(mutex_);
    // Sessions of removed or re-created containers end with their container:
    // let them go, looking at the kept sessions in turn.
    auto it = kept_sessions_.upper_bound(last_looked_at_);
    for (int turn = 0; turn < 2 && (it == kept_sessions_.end() || it->first == key); ++turn)
        it = it == kept_sessions_.end() ? kept_sessions_.begin() : std::next(it);
    if (it != kept_sessions_.end() && it->first != key) {
        last_looked_at_ = it->first;
        KeptSession &kept = *it->second;
        bool gone = false;
        if (it->second.use_count() == 1 && kept.mutex.try_lock()) {
            gone = !kept.session || !kept.session->alive();
            kept.mutex.unlock();
        }
        if (gone) kept_sessions_.erase(it);
    }
    auto &entry = kept_sessions_[key];
    if (!entry) entry = std::make_shared<KeptSession>();
    return entry;
}

void AgentDriver::drop_session(KeptSession &kept) {
    kept.session.reset();
    kept.lost = true;
}

std::unique_ptr<AgentSession> AgentDriver::start(AgentTarget &target, const UpdateLog &log,
                                                 updater::AgentSource &source) {
    const AgentPlace place = target.place();
    if (refusal(place, false)) return nullptr;
    const AgentBinary *binary = nullptr;
    std::string why;
    {
        common::MutexLock lock(mutex_);
        try {
            if (!binary_) binary_ = load_agent_binary(agent_path_);
            binary = &*binary_;  // loaded once, never replaced
        } catch (const std::runtime_error &e) {
            why = e.what();
        }
    }
    if (binary == nullptr) {
        refuse(place, why, log);
        return nullptr;
    }
    std::string injected_why;
    try {
        if (const std::string injected = target.injected_agent(); !injected.empty())
            if (auto session = start_injected(target, injected, *binary, log, injected_why)) {
                source = updater::AgentSource::injected;
                return session;
            }
        target.install_ahead(*binary);
        for (int attempt = 0;; ++attempt) {
            try {
                auto session = start_at(target, binary->container_path, *binary, log);
                log(LU_LOG_DEBUG, "Started " + session->description() + " in " + place.shown + " (copied in)");
                source = updater::AgentSource::copied;
                return session;
            } catch (const AgentExecEnded &e) {
                why = "starting it: " + std::string(e.what());
                // Not there yet (a new container): copy it in, then start it again.
                if (e.exit_code != kExitNotFound || attempt > 0) break;
                if (const auto failed = target.install(*binary); !failed.empty()) {
                    why = failed;
                    break;
                }
            }
        }
    } catch (const AgentSessionBroken &e) {
        why = e.what();
    }
    if (!injected_why.empty()) why = injected_why + "; and this host's lu-agent, " + why;
    if (target.lasting_refusal(why, log)) refuse(place, why, log);
    return nullptr;
}

std::unique_ptr<AgentSession> AgentDriver::start_at(AgentTarget &target, const std::string &path,
                                                    const AgentBinary &binary, const UpdateLog &log) const {
    auto session = AgentSession::start(target.open(path), timeout_, stderr_to(log));
    move_to_socket(*session, target, binary.container_path, log);
    return session;
}

std::unique_ptr<AgentSession> AgentDriver::start_injected(AgentTarget &target, const std::string &path,
                                                          const AgentBinary &binary, const UpdateLog &log,
                                                          std::string &why) const {
    const std::string shown = target.place().shown;
    try {
        auto session = start_at(target, path, binary, log);
        log(LU_LOG_DEBUG, "Started " + session->description() + " in " + shown + " (injected at " + path + ")");
        return session;
    } catch (const AgentExecEnded &e) {
        if (e.exit_code == kExitNotFound) return nullptr;  // none there: the usual copy
        why = e.what();
    } catch (const AgentSessionBroken &e) {
        why = e.what();
    }
    // Its own version answers the hello with a refusal naming both versions.
    why = "the injected lu-agent at " + path + " did not start (" + why + ")";
    log(LU_LOG_INFO, "In " + shown + ", " + why + "; copying this host's lu-agent in instead (protocol version " +
                         std::to_string(agent_protocol::kProtocolVersion) + ")");
    return nullptr;
}

AgentSession *AgentDriver::session_in(KeptSession &kept, AgentTarget &target, const UpdateLog &log) {
    if (kept.session) kept.session->route_stderr(stderr_to(log));
    if (kept.session && !kept.session->alive()) {
        log(LU_LOG_INFO, "The lu-agent session in " + target.place().shown + " ended; starting a new one");
        drop_session(kept);
    }
    if (!kept.session) {
        kept.session = start(target, log, kept.source);
        if (!kept.session) return nullptr;
        sessions_.fetch_add(1);
        kept.session->route_stderr(stderr_to(log));
        if (kept.lost) {
            kept.lost = false;
            reconnects_.fetch_add(1);
        }
    }
    return kept.session.get();
}

std::optional<Outcome> AgentDriver::update(AgentTarget &target, const UpdateLog &log, const UpdatePass &pass) {
    const std::shared_ptr<KeptSession> kept = kept_session_for(target.place().session_key);
    const Use use(*kept);
    // A live session says the container runs and the agent is not refused there.
    if (!kept->session || !kept->session->alive()) {
        target.confirm();
        if (refusal(target.place(), true)) return std::nullopt;
    }
    const auto probe = target.late_probe();
    for (int attempt = 0;; ++attempt) {
        AgentSession *session = session_in(*kept, target, log);
        if (session == nullptr) return std::nullopt;
        bool run_started = false;
        try {
            Outcome outcome;
            if (probe.count() == 0) {
                outcome = pass(*session, run_started);
            } else {
                LateAnswerWatch watched(*session, probe, target);
                outcome = pass(watched, run_started);
            }
            outcome.agent = kept->source;
            return outcome;
        } catch (const LateAnswerExplained &e) {
            drop_session(*kept);
            return Outcome::container_not_running(e.what());
        } catch (const AgentSessionBroken &e) {
            drop_session(*kept);
            const std::string what = "the lu-agent session in " + target.place().shown + " broke: " + e.what();
            // Stopped or removed meanwhile: not running, as one stopped before the update (C07).
            if (const auto gone = target.gone_reason(); !gone.empty())
                return Outcome::container_not_running(std::string(gone).append("\n").append(what));
            // Files are whole-or-nothing and sending them again is harmless; a run may have happened.
            if (run_started)
                return Outcome::infra_failure(what + " (during a run: not sent again, the command may have run)");
            if (attempt > 0) return Outcome::infra_failure(what + " (twice in a row)");
            log(LU_LOG_INFO, what + "; sending the update again through a new session");
            target.refresh();
        }
    }
}

void AgentDriver::prepare(AgentTarget &target, const UpdateLog &log) {
    if (refusal(target.place(), false)) return;
    const std::shared_ptr<KeptSession> kept = kept_session_for(target.place().session_key);
    // An update arriving meanwhile waits for this start and uses its session.
    const Use use(*kept);
    session_in(*kept, target, log);
}

DigestOutcome AgentDriver::digest(AgentTarget &target, const agent_protocol::Digest &request, const DigestEntryFn &each,
                                  const UpdateLog &log, const std::function<bool()> &keep_going) {
    const std::string &path = request.path;
    const std::string needs = "verify needs lu-agent in the container: ";
    const AgentPlace place = target.place();
    if (auto why = refusal(place, false)) return {DigestOutcome::Kind::unavailable, needs + *why};
    const std::shared_ptr<KeptSession> kept = kept_session_for(place.session_key);
    const Use use(*kept);
    for (int attempt = 0;; ++attempt) {
        AgentSession *session = session_in(*kept, target, log);
        if (session == nullptr) {
            if (auto why = refusal(place, false)) return {DigestOutcome::Kind::unavailable, needs + *why};
            // A cause that passes (the container restarting, replaced): the agent
            // may run there, and may have watched it, so the container cannot tell
            // what it holds now; unavailable would let a forward sync overwrite it.
            return {DigestOutcome::Kind::failed, "lu-agent did not start in " + place.shown +
                                                     " for a cause that passes (see the log); digest again later"};
        }
        std::size_t handed = 0;
        try {
            const auto result = digest_through_agent(
                *session, request, timeout_,
                [&](const agent_protocol::DigestEntry &e) {
                    ++handed;
                    return each(e);
                },
                keep_going);
            if (result.stopped) {
                // Out of step now; ended on purpose, so not a lost session (no reconnect to verify after).
                kept->session.reset();
                return {DigestOutcome::Kind::stopped, {}};
            }
            if (result.error == ENOENT && result.entries == 0)
                return {DigestOutcome::Kind::not_found, "nothing at " + path + " in " + place.shown};
            // ENOENT past the first entry: a path went away during the walk, so it is not there.
            if (result.error != 0 && result.error != ENOENT)
                return {DigestOutcome::Kind::failed, "in " + place.shown + ": " + result.message};
            return {};
        } catch (const AgentSessionBroken &e) {
            drop_session(*kept);
            const std::string what = "the lu-agent session in " + place.shown + " broke: " + e.what();
            if (const auto gone = target.gone_reason(); !gone.empty())
                return {DigestOutcome::Kind::failed, std::string(gone).append("\n").append(what)};
            // A digest only reads: asking again is harmless, unless entries were handed out already.
            if (attempt > 0 || handed > 0) return {DigestOutcome::Kind::failed, what};
            log(LU_LOG_INFO, what + "; digesting again through a new session");
        }
    }
}

}  // namespace liveupdate::agent_client
