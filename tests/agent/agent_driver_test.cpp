// The lu-agent driver (common/agent_client/agent_driver) over a scripted
// agent in this process: one session per container, replaced when it ended,
// an update resent once after a broken session (never after a run began),
// refusals said once, the agent copied in when missing, stderr held between
// uses, prepare ahead of the first update, digests through the session, and
// the sessions of other containers asked one at a time whether they ended,
// and an agent injected at admission used as it is when it speaks our version.
#define BOOST_TEST_MODULE agent_driver
#include <boost/test/unit_test.hpp>

#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "common/agent_client/agent_apply.hpp"
#include "common/agent_client/agent_driver.hpp"
#include "common/agent_protocol/messages.hpp"

namespace ac = liveupdate::agent_client;
namespace ap = liveupdate::agent_protocol;
using liveupdate::updater::Outcome;
using liveupdate::updater::UpdateLog;

namespace {

class ScriptedTransport;

// The container's side, shared by the test and the transports it opens.
struct ScriptedAgent {
    std::string generation = "start-1";
    std::string refuse;                  // open() refuses with this when set
    bool lasting = true;                 // a refusal lasts (else: the cause passes)
    bool missing = false;                // not in the container until install()
    bool unexecutable = false;           // its exec ends at once (126), the handshake's write failing
    std::string complaint;               // the engine's text on stdout instead of a hello, then its end (126)
    bool complaint_ends_later = true;    // ... a moment later, or with the text
    int end_at_request = -1;             // the stream ends when request number N (from 0) arrives
    bool end_each_request = false;       // ... or when any request arrives
    std::string stderr_bytes;            // given on stderr at the next read or idle
    int opens = 0;                       // open() calls
    int starts = 0;                      // streams that answered the handshake
    int installs = 0;                    // install() calls
    bool looks_for_injected = false;     // the target offers kInjectedAgentPath first
    std::uint32_t injected_version = 0;  // the protocol of the agent injected there (0: none there)
    std::vector<std::string> opened;     // the commands open() started
    int requests = 0;                    // requests after the handshake, over all streams
    int idles = 0;                       // idle() calls: asked whether the session ended
    ScriptedTransport *current = nullptr;
};

// Answers Hello, Run (exit 0) and Digest (one entry, or ENOENT for "/none").
class ScriptedTransport final : public ac::AgentTransport {
public:
    // version: the protocol the agent speaks (0: none at the path opened).
    ScriptedTransport(ScriptedAgent &agent, std::uint32_t version) : agent_(agent), version_(version) {
        agent_.current = this;
        if (version_ == 0) end(127);
        if (agent_.unexecutable) {
            end(126);
            failure_ = "send failed: Broken pipe";
        }
    }
    ~ScriptedTransport() override {
        if (agent_.current == this) agent_.current = nullptr;
    }
    void end(int exit_code) {
        ended_ = true;
        exit_code_ = exit_code;
    }

    Progress write(std::string_view data, Clock::time_point, Sink &sink) override {
        pass_stderr(sink);
        if (ended_) return Progress::ended;
        in_.feed(data);
        while (auto frame = in_.next()) {
            if (frame->type == ap::MessageType::hello) {
                if (!agent_.complaint.empty()) continue;
                if (version_ != ap::kProtocolVersion) {
                    // What lu-agent says to a host of another version, and its end.
                    answers_ += ap::encode(ap::Fatal{"the host speaks protocol version " +
                                                     std::to_string(ap::kProtocolVersion) + ", this agent " +
                                                     std::to_string(version_)});
                    end(1);
                    continue;
                }
                ++agent_.starts;
                answers_ += ap::encode(ap::HelloReply{ap::kProtocolVersion, "scripted agent"});
                continue;
            }
            if (agent_.requests++ == agent_.end_at_request || agent_.end_each_request) {
                end(137);
                return Progress::ended;
            }
            if (frame->type == ap::MessageType::run) {
                answers_ += ap::encode(ap::ExitStatus{0, 0, ""});
            } else if (frame->type == ap::MessageType::digest) {
                if (ap::decode<ap::Digest>(*frame).path == "/none") {
                    answers_ += ap::encode(ap::Result{ENOENT, "no such file"});
                } else {
                    answers_ += ap::encode(ap::DigestEntry{"", 2, 0755, 0, 0});
                    answers_ += ap::encode(ap::Result{0, ""});
                }
            }
        }
        return Progress::done;
    }
    Progress read(Clock::time_point deadline, Sink &sink) override {
        pass_stderr(sink);
        if (!agent_.complaint.empty() && !ended_) {
            if (!complained_) {
                complained_ = true;
                sink.stdout_bytes(agent_.complaint);
                if (agent_.complaint_ends_later) return Progress::done;
                end(126);
                return Progress::ended;
            }
            // Its end comes later than the text: a reader that does not wait misses it.
            if (deadline <= Clock::now()) return Progress::timed_out;
            end(126);
            return Progress::ended;
        }
        if (!answers_.empty()) {
            sink.stdout_bytes(std::exchange(answers_, {}));
            return Progress::done;
        }
        return ended_ ? Progress::ended : Progress::timed_out;
    }
    bool idle(Sink &sink) override {
        ++agent_.idles;
        pass_stderr(sink);
        return !ended_ && answers_.empty();
    }
    End end() override { return {ended_ ? exit_code_ : -1, failure_}; }

private:
    void pass_stderr(Sink &sink) {
        if (!agent_.stderr_bytes.empty()) sink.stderr_bytes(std::exchange(agent_.stderr_bytes, {}));
    }

    ScriptedAgent &agent_;
    std::uint32_t version_;
    ap::FrameDecoder in_;
    std::string answers_;
    bool ended_ = false;
    int exit_code_ = -1;
    std::string failure_;
    bool complained_ = false;
};

class ScriptedTarget final : public ac::AgentTarget {
public:
    ScriptedTarget(ScriptedAgent &agent, std::string name) : agent_(agent), name_(std::move(name)) {}
    ac::AgentPlace place() const override { return {name_, name_, agent_.generation, "container " + name_}; }
    std::string install(const ac::AgentBinary &) override {
        ++agent_.installs;
        agent_.missing = false;
        return {};
    }
    std::string injected_agent() override {
        return agent_.looks_for_injected ? std::string(ac::kInjectedAgentPath) : std::string();
    }
    std::unique_ptr<ac::AgentTransport> open(const std::string &command) override {
        ++agent_.opens;
        agent_.opened.push_back(command);
        if (!agent_.refuse.empty()) throw ac::AgentSessionBroken(agent_.refuse);
        const bool injected = command == ac::kInjectedAgentPath;
        const std::uint32_t copied = agent_.missing ? 0 : ap::kProtocolVersion;
        return std::make_unique<ScriptedTransport>(agent_, injected ? agent_.injected_version : copied);
    }
    bool lasting_refusal(std::string &, int, const UpdateLog &) override { return agent_.lasting; }

private:
    ScriptedAgent &agent_;
    std::string name_;
};

struct Log {
    std::vector<std::string> lines;
    static void collect(void *ctx, int32_t, lu_str line) {
        static_cast<Log *>(ctx)->lines.emplace_back(line.data, line.size);
    }
    UpdateLog log() { return UpdateLog(&Log::collect, this); }
    bool has(const std::string &text) const {
        for (const auto &line : lines)
            if (line.find(text) != std::string::npos) return true;
        return false;
    }
};

// A file for the driver to load as the agent binary.
std::string agent_file() {
    static const std::string path = [] {
        std::string p = "/tmp/agent_driver_test_agent." + std::to_string(::getpid());
        std::ofstream(p) << "not really an agent";
        return p;
    }();
    return path;
}

struct Fixture {
    ScriptedAgent agent;
    ScriptedTarget target{agent, "c1"};
    ac::AgentDriver driver{agent_file(), std::chrono::milliseconds(2000)};
    int passes = 0;

    // One update: a run, with run_started set first when `marks_run`.
    std::optional<Outcome> update(Log &log, bool marks_run = false) { return update_of(target, log, marks_run); }
    std::optional<Outcome> update_of(ScriptedTarget &of, Log &log, bool marks_run = false) {
        return driver.update(of, log.log(), [&](ac::AgentStream &session, bool &run_started) {
            ++passes;
            run_started = marks_run;
            const auto result = ac::run_through_agent(session, {"true"}, std::chrono::milliseconds(1000),
                                                      std::chrono::milliseconds(1000), [](int, std::string_view) {});
            return result.exit_code == 0 ? Outcome{} : Outcome::run_failure(result.exit_code, "failed");
        });
    }
};

bool ok(const std::optional<Outcome> &o) { return o && o->kind == Outcome::Kind::ok; }

}  // namespace

BOOST_FIXTURE_TEST_CASE(one_session_serves_the_updates_of_a_container, Fixture) {
    Log first, second;
    BOOST_TEST_REQUIRE(ok(update(first)));
    BOOST_TEST(first.has("Started scripted agent in container c1"));
    BOOST_TEST_REQUIRE(ok(update(second)));
    BOOST_TEST(!second.has("Started"));
    BOOST_TEST(agent.starts == 1);
    BOOST_TEST(driver.reconnect_count() == 0u);
    BOOST_TEST(driver.session_count() == 1u);
}

BOOST_FIXTURE_TEST_CASE(a_session_that_ended_between_updates_is_replaced, Fixture) {
    Log first, second;
    BOOST_TEST_REQUIRE(ok(update(first)));
    BOOST_TEST_REQUIRE(agent.current != nullptr);
    agent.current->end(137);
    BOOST_TEST_REQUIRE(ok(update(second)));
    BOOST_TEST(second.has("The lu-agent session in container c1 ended; starting a new one"));
    BOOST_TEST(agent.starts == 2);
    BOOST_TEST(driver.reconnect_count() == 1u);
    BOOST_TEST(driver.session_count() == 2u);
}

BOOST_FIXTURE_TEST_CASE(an_update_whose_session_broke_is_sent_again_once, Fixture) {
    agent.end_at_request = 0;
    Log log;
    BOOST_TEST_REQUIRE(ok(update(log)));
    BOOST_TEST(passes == 2);
    BOOST_TEST(agent.starts == 2);
    BOOST_TEST(log.has("broke: "));
    BOOST_TEST(log.has("agent exit code 137"));
    BOOST_TEST(log.has("sending the update again through a new session"));
}

BOOST_FIXTURE_TEST_CASE(a_session_broken_during_a_run_is_not_sent_again, Fixture) {
    agent.end_at_request = 0;
    Log log;
    const auto outcome = update(log, true);
    BOOST_TEST_REQUIRE(outcome.has_value());
    BOOST_TEST((outcome->kind == Outcome::Kind::infra_failure));
    BOOST_TEST(outcome->message.find("during a run: not sent again") != std::string::npos, outcome->message);
    BOOST_TEST(passes == 1);
}

BOOST_FIXTURE_TEST_CASE(a_session_broken_twice_in_a_row_is_an_infra_failure, Fixture) {
    agent.end_each_request = true;
    Log log;
    const auto outcome = update(log);
    BOOST_TEST_REQUIRE(outcome.has_value());
    BOOST_TEST((outcome->kind == Outcome::Kind::infra_failure));
    BOOST_TEST(outcome->message.find("(twice in a row)") != std::string::npos, outcome->message);
    BOOST_TEST(passes == 2);
}

BOOST_FIXTURE_TEST_CASE(an_agent_that_cannot_run_is_refused_once_until_the_container_restarts, Fixture) {
    agent.refuse = "no way in";
    Log first, second, restarted;
    BOOST_TEST(!update(first).has_value());
    BOOST_TEST(first.has("lu-agent cannot run in container c1: no way in"));
    BOOST_TEST(!update(second).has_value());
    BOOST_TEST(!second.has("cannot run"));
    BOOST_TEST(agent.opens == 1);
    BOOST_TEST(driver.session_count() == 0u);  // a refused start is no session
    agent.generation = "start-2";
    agent.refuse.clear();
    BOOST_TEST(ok(update(restarted)));
    BOOST_TEST(agent.opens == 2);
}

BOOST_FIXTURE_TEST_CASE(a_start_failure_that_passes_is_not_remembered, Fixture) {
    agent.refuse = "the container was paused";
    agent.lasting = false;
    Log first, second;
    BOOST_TEST(!update(first).has_value());
    BOOST_TEST(!first.has("cannot run"));
    agent.refuse.clear();
    BOOST_TEST(ok(update(second)));
    BOOST_TEST(agent.opens == 2);
}

BOOST_FIXTURE_TEST_CASE(a_missing_agent_is_copied_in_and_started_again, Fixture) {
    agent.missing = true;
    Log log;
    BOOST_TEST_REQUIRE(ok(update(log)));
    BOOST_TEST(agent.installs == 1);
    BOOST_TEST(agent.opens == 2);
    BOOST_TEST(agent.starts == 1);
}

BOOST_FIXTURE_TEST_CASE(an_injected_agent_of_our_version_is_used_without_a_copy, Fixture) {
    agent.looks_for_injected = true;
    agent.injected_version = ap::kProtocolVersion;
    agent.missing = false;
    Log log;
    BOOST_TEST_REQUIRE(ok(update(log)));
    BOOST_TEST(agent.installs == 0);
    BOOST_TEST(agent.opened == std::vector<std::string>{std::string(ac::kInjectedAgentPath)});
    BOOST_TEST(log.has("in container c1 (injected at /.lu-agent/injected/lu-agent)"));
}

BOOST_FIXTURE_TEST_CASE(no_injected_agent_means_the_usual_copy, Fixture) {
    agent.looks_for_injected = true;
    agent.missing = true;
    Log log;
    BOOST_TEST_REQUIRE(ok(update(log)));
    BOOST_TEST(agent.installs == 1);
    BOOST_TEST(agent.opened.size() == 3u);
    BOOST_TEST(agent.opened.front() == std::string(ac::kInjectedAgentPath));
    BOOST_TEST(log.has("(copied in)"));
    BOOST_TEST(!log.has("injected lu-agent"));
}

BOOST_FIXTURE_TEST_CASE(an_injected_agent_of_another_version_gives_way_to_a_copy, Fixture) {
    agent.looks_for_injected = true;
    agent.injected_version = ap::kProtocolVersion + 1;
    agent.missing = true;
    Log log;
    BOOST_TEST_REQUIRE(ok(update(log)));
    BOOST_TEST(agent.installs == 1);
    const std::string both = "the host speaks protocol version " + std::to_string(ap::kProtocolVersion) +
                             ", this agent " + std::to_string(ap::kProtocolVersion + 1);
    BOOST_TEST(log.has("In container c1, the injected lu-agent at /.lu-agent/injected/lu-agent did not start"));
    BOOST_TEST(log.has(both));
    BOOST_TEST(log.has("(copied in)"));
}

// No copy possible either (a read-only root filesystem): one message names the container and both versions.
BOOST_FIXTURE_TEST_CASE(an_injected_agent_of_another_version_and_no_copy_is_refused_saying_both, Fixture) {
    agent.looks_for_injected = true;
    agent.injected_version = ap::kProtocolVersion + 1;
    agent.missing = true;
    struct ReadOnlyRoot final : ac::AgentTarget {
        explicit ReadOnlyRoot(ScriptedTarget &inner) : inner(inner) {}
        ac::AgentPlace place() const override { return inner.place(); }
        std::string injected_agent() override { return inner.injected_agent(); }
        std::string install(const ac::AgentBinary &) override { return "tar: Read-only file system"; }
        std::unique_ptr<ac::AgentTransport> open(const std::string &c) override { return inner.open(c); }
        bool lasting_refusal(std::string &, int, const UpdateLog &) override { return true; }
        ScriptedTarget &inner;
    } read_only(target);
    Log log;
    const auto outcome = driver.update(read_only, log.log(), [](ac::AgentStream &, bool &) { return Outcome{}; });
    BOOST_TEST(!outcome.has_value());
    const std::string refused =
        "lu-agent cannot run in container c1: the injected lu-agent at "
        "/.lu-agent/injected/lu-agent did not start (";
    BOOST_TEST(log.has(refused));
    BOOST_TEST(log.has("this agent " + std::to_string(ap::kProtocolVersion + 1)));
    BOOST_TEST(log.has("; and this host's lu-agent, tar: Read-only file system"));
}

BOOST_FIXTURE_TEST_CASE(a_start_refused_while_writing_still_says_the_exit_code, Fixture) {
    // The exec ended before the handshake was written: the write fails, and the
    // exit code (what says "not executable") must still reach the refusal.
    agent.unexecutable = true;
    Log log;
    BOOST_TEST(!update(log).has_value());
    BOOST_TEST(log.has("agent exit code 126"));
    BOOST_TEST(log.has("send failed: Broken pipe"));
}

BOOST_FIXTURE_TEST_CASE(an_engines_complaint_instead_of_a_hello_is_told_with_the_exit_code, Fixture) {
    agent.complaint = "OCI runtime exec failed: exec: \"/.lu-agent/lu-agent\": permission denied: unknown\r\n";
    for (const bool later : {true, false}) {
        agent.complaint_ends_later = later;
        ScriptedTarget fresh(agent, later ? "c-later" : "c-with-it");
        Log log;
        BOOST_TEST(!update_of(fresh, log).has_value());
        BOOST_TEST(log.has("agent exit code 126"), later);
        BOOST_TEST(log.has("OCI runtime exec failed"), later);
    }
}

BOOST_FIXTURE_TEST_CASE(stderr_between_two_updates_goes_to_the_next_ones_log, Fixture) {
    ScriptedAgent other_agent;
    ScriptedTarget other(other_agent, "c2");
    Log first, meanwhile, second;
    BOOST_TEST_REQUIRE(ok(update(first)));
    agent.stderr_bytes = "said between updates\n";
    // Another container's update asks whether this session still lives: its
    // stderr is read then, with no update of its own to log to.
    BOOST_TEST_REQUIRE(ok(update_of(other, meanwhile)));
    BOOST_TEST_REQUIRE(agent.stderr_bytes.empty());
    BOOST_TEST_REQUIRE(ok(update(second)));
    BOOST_TEST(!first.has("said between updates"));
    BOOST_TEST(!meanwhile.has("said between updates"));
    BOOST_TEST(second.has("lu-agent: said between updates"));
}

BOOST_FIXTURE_TEST_CASE(prepare_starts_the_session_the_first_update_uses, Fixture) {
    Log prepared, first;
    driver.prepare(target, prepared.log());
    BOOST_TEST(agent.starts == 1);
    BOOST_TEST(prepared.has("Started scripted agent"));
    BOOST_TEST_REQUIRE(ok(update(first)));
    BOOST_TEST(!first.has("Started"));
    BOOST_TEST(agent.starts == 1);
}

BOOST_FIXTURE_TEST_CASE(digests_go_through_the_container_session, Fixture) {
    Log log;
    BOOST_TEST_REQUIRE(ok(update(log)));
    std::vector<std::string> entries;
    const auto found = driver.digest(
        target, ap::Digest{"/app", {}, 1, 0, 0},
        [&](const ap::DigestEntry &e) {
            entries.push_back(e.path);
            return true;
        },
        log.log());
    BOOST_TEST((found.kind == ac::DigestOutcome::Kind::ok), found.message);
    BOOST_TEST(entries.size() == 1u);
    const auto none = driver.digest(
        target, ap::Digest{"/none", {}, 1, 0, 0}, [](const ap::DigestEntry &) { return true; }, log.log());
    BOOST_TEST((none.kind == ac::DigestOutcome::Kind::not_found), none.message);
    BOOST_TEST(none.message == "nothing at /none in container c1");
    BOOST_TEST(agent.starts == 1);
}

// A digest the verify stops wanting (the daemon is stopping) ends its session
// at once rather than reading the rest, and that is no lost session: the next
// use starts a new one without counting a reconnect.
BOOST_FIXTURE_TEST_CASE(a_digest_stopped_by_its_caller_ends_the_session_without_a_reconnect, Fixture) {
    Log log;
    const auto stopped = driver.digest(
        target, ap::Digest{"/app", {}, 1, 0, 0}, [](const ap::DigestEntry &) { return false; }, log.log());
    BOOST_TEST((stopped.kind == ac::DigestOutcome::Kind::stopped), stopped.message);
    BOOST_TEST(agent.starts == 1);
    const auto again = driver.digest(
        target, ap::Digest{"/app", {}, 1, 0, 0}, [](const ap::DigestEntry &) { return true; }, log.log());
    BOOST_TEST((again.kind == ac::DigestOutcome::Kind::ok), again.message);
    BOOST_TEST(agent.starts == 2);
    BOOST_TEST(driver.reconnect_count() == 0u);
    BOOST_TEST(driver.session_count() == 2u);  // each started session counts, reconnect or not
}

BOOST_FIXTURE_TEST_CASE(a_refused_agent_makes_digests_unavailable_saying_why, Fixture) {
    agent.refuse = "no way in";
    Log log;
    const auto outcome = driver.digest(
        target, ap::Digest{"/app", {}, 1, 0, 0}, [](const ap::DigestEntry &) { return true; }, log.log());
    BOOST_TEST((outcome.kind == ac::DigestOutcome::Kind::unavailable));
    BOOST_TEST(outcome.message == "verify needs lu-agent in the container: no way in", outcome.message);
}

// A start that failed for a cause that passes (the container restarting, a
// pod replaced meanwhile) is no sign that the agent cannot run there: a
// restarted daemon's initial sync takes unavailable for "no watch could have
// run" and overwrites, so the digest fails instead and nothing is refused.
BOOST_FIXTURE_TEST_CASE(a_start_failed_for_a_passing_cause_fails_the_digest, Fixture) {
    agent.refuse = "the pod was replaced";
    agent.lasting = false;
    Log log;
    const auto outcome = driver.digest(
        target, ap::Digest{"/app", {}, 1, 0, 0}, [](const ap::DigestEntry &) { return true; }, log.log());
    BOOST_TEST((outcome.kind == ac::DigestOutcome::Kind::failed), outcome.message);
    BOOST_TEST(outcome.message ==
                   "lu-agent did not start in container c1 for a cause that passes (see the log); digest again later",
               outcome.message);
    agent.refuse.clear();
    const auto again = driver.digest(
        target, ap::Digest{"/app", {}, 1, 0, 0}, [](const ap::DigestEntry &) { return true; }, log.log());
    BOOST_TEST((again.kind == ac::DigestOutcome::Kind::ok), again.message);
}

// Six replicas, each with a session: an update asks one other session
// whether it ended, not every one (the fan-out of one change would ask
// N - 1 sessions per update, under the driver's lock).
struct Replicas {
    static constexpr int kCount = 6;
    std::vector<std::unique_ptr<ScriptedAgent>> agents;
    std::vector<std::unique_ptr<ScriptedTarget>> targets;
    ac::AgentDriver driver{agent_file(), std::chrono::milliseconds(2000)};

    Replicas() {
        for (int i = 0; i < kCount; ++i) {
            agents.push_back(std::make_unique<ScriptedAgent>());
            targets.push_back(std::make_unique<ScriptedTarget>(*agents.back(), "c" + std::to_string(i + 1)));
        }
    }
    bool update(int i) {
        Log log;
        const auto outcome = driver.update(*targets[i], log.log(), [](ac::AgentStream &session, bool &) {
            const auto result = ac::run_through_agent(session, {"true"}, std::chrono::milliseconds(1000),
                                                      std::chrono::milliseconds(1000), [](int, std::string_view) {});
            return result.exit_code == 0 ? Outcome{} : Outcome::run_failure(result.exit_code, "failed");
        });
        return ok(outcome);
    }
    int idles_of_others(int i) const {
        int sum = 0;
        for (int j = 0; j < kCount; ++j)
            if (j != i) sum += agents[j]->idles;
        return sum;
    }
};

BOOST_FIXTURE_TEST_CASE(an_update_asks_at_most_one_other_session_whether_it_ended, Replicas) {
    for (int i = 0; i < kCount; ++i) BOOST_TEST_REQUIRE(update(i));
    for (int i = 0; i < kCount; ++i) {
        const int before = idles_of_others(i);
        BOOST_TEST_REQUIRE(update(i));
        BOOST_TEST(idles_of_others(i) - before <= 1,
                   "update of c" << i + 1 << " asked " << idles_of_others(i) - before << " others");
    }
}

BOOST_FIXTURE_TEST_CASE(the_ended_session_of_a_container_gone_is_let_go_by_later_updates, Replicas) {
    for (int i = 0; i < kCount; ++i) BOOST_TEST_REQUIRE(update(i));
    BOOST_TEST_REQUIRE(agents[3]->current != nullptr);
    agents[3]->current->end(137);
    for (int n = 0; n < kCount && agents[3]->current != nullptr; ++n) BOOST_TEST_REQUIRE(update(0));
    BOOST_TEST(agents[3]->current == nullptr);  // its transport was destroyed with its kept session
}
