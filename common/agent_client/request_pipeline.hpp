// Requests to lu-agent, pipelined: sent in batches without waiting, the
// answers counted and collected later (in order), the first failure kept.
// A guarded request (its ExpectContent sent before it) names its path, so
// that its refusal (kNotAsExpected) goes to on_kept, not to the failures.
#pragma once

#include <chrono>
#include <cstddef>
#include <deque>
#include <functional>
#include <string>
#include <string_view>
#include <utility>

#include "common/agent_client/agent_stream.hpp"
#include "common/agent_protocol/messages.hpp"

namespace liveupdate::agent_client {

// A frame of an unexpected type or shape: the session is out of step, so it counts as broken.
template <class M>
M expect(const agent_protocol::Frame &frame) {
    try {
        return agent_protocol::decode<M>(frame);
    } catch (const agent_protocol::ProtocolError &e) {
        throw AgentSessionBroken(std::string("the agent's answer: ") + e.what());
    }
}

class RequestPipeline {
public:
    // The path a guarded request left as the container holds it, and what the agent found there.
    using KeptFn = std::function<void(const std::string &path, const std::string &found)>;

    RequestPipeline(AgentStream &session, std::chrono::milliseconds stall, KeptFn on_kept = {})
        : session_(session), stall_(stall), on_kept_(std::move(on_kept)) {}

    // A request answered by a Result.
    void send(const std::string &frame) { send(frame, std::string()); }
    // The same, guarded: its ExpectContent for guarded_path went just before it.
    void send(const std::string &frame, std::string guarded_path);
    // A request without an answer (a file's begin and parts).
    void send_unanswered(const std::string &frame);
    // The same, a frame in two pieces: head, then rest as it is (a large
    // part's data, not copied into a frame).
    void send_unanswered(std::string_view head, std::string_view rest);
    // Every answer owed so far is read (failures kept); then the request goes
    // out and its own answer comes back.
    agent_protocol::Frame ask(const std::string &frame);
    // Reads every answer owed.
    void collect();
    // collect(), then throws AgentRequestFailed with the first failure.
    void finish();

private:
    static constexpr std::size_t kBatchBytes = std::size_t{256} * 1024;
    static constexpr std::size_t kMostOwed = 2048;
    void push();
    // Reads answers until no more than `owed` are owed.
    void collect_down_to(std::size_t owed);

    AgentStream &session_;
    std::chrono::milliseconds stall_;
    KeptFn on_kept_;
    std::string batch_;
    // The guarded path of each request whose answer is owed, oldest first ("" when unguarded).
    std::deque<std::string> owed_;
    std::string first_failure_;
};

}  // namespace liveupdate::agent_client
