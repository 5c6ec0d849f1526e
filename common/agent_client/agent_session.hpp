// One lu-agent session over an AgentTransport: frames of
// common/agent_protocol/ go in on the agent's stdin and come back on its
// stdout; its stderr lines go to the log of the update in progress. The
// session outlives each update, so lines that arrive between two uses are
// held for the next one.
#pragma once

#include <chrono>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/agent_client/agent_stream.hpp"
#include "common/agent_client/agent_transport.hpp"
#include "common/agent_protocol/messages.hpp"
#include "common/line_splitter.hpp"

namespace liveupdate::agent_client {

// The agent's exec ended before the handshake: how (exit code 127: the
// agent is not in the container).
class AgentExecEnded : public AgentSessionBroken {
public:
    AgentExecEnded(int exit_code, const std::string &message) : AgentSessionBroken(message), exit_code(exit_code) {}
    int exit_code;
};

class AgentSession final : public AgentStream, private AgentTransport::Sink {
public:
    // Does the version handshake over transport, the agent's stderr going to
    // on_stderr meanwhile. Throws AgentExecEnded when the exec ended first,
    // AgentSessionBroken when the agent does not answer.
    static std::unique_ptr<AgentSession> start(std::unique_ptr<AgentTransport> transport,
                                               std::chrono::milliseconds timeout, LineFn on_stderr);

    AgentSession(const AgentSession &) = delete;
    AgentSession &operator=(const AgentSession &) = delete;

    // Where the agent's stderr lines go: the log of the update or digest in
    // progress, set for its duration. Lines that arrive with no use in
    // progress wait for the next (at most kHeldLines).
    void route_stderr(LineFn sink);
    static constexpr std::size_t kHeldLines = 64;
    // How long a start that got text instead of a hello waits for the exec's end (and its exit code).
    static constexpr std::chrono::milliseconds kEndAfterComplaint{2000};

    // False once the stream has ended, or holds answers nobody asked for; never blocks.
    bool alive();
    void send(std::string_view frames, Clock::time_point deadline) override;
    agent_protocol::Frame receive(Clock::time_point deadline) override;
    // Moves the session's frames to a unix socket the agent opens in
    // agent_dir, reached under root (the container's filesystem as this
    // process sees it: /proc/PID/root), the stream staying for stderr and
    // the session's end. "" once moved; else why not (the frames stay on the
    // stream). Throws AgentSessionBroken when the session broke meanwhile.
    std::string move_to_socket(const std::string &root, const std::string &agent_dir,
                               std::chrono::milliseconds timeout);
    // "lu-agent 1 (pid 12, uid 0)", as the handshake said.
    const std::string &description() const noexcept { return description_; }
    // The protocol version the agent speaks (kOldestProtocolVersion and up).
    std::uint32_t protocol_version() const noexcept override { return version_; }
    bool take_unguarded_notice() noexcept override { return !std::exchange(told_unguarded_, true); }

    // Sync back (docs/sync-back.md): asks the agent to watch request.root;
    // from then on its ContainerChange frames, which come unasked between
    // answers, are kept for take_changes() (a large file's, sent in parts,
    // once whole, at most request.max_file_bytes). "" when watching; else why not:
    // the agent's refusal, or an agent older than kSyncBackVersion (the
    // session stays one-way; `log` is told so once per session). Throws
    // AgentSessionBroken when the session broke.
    std::string watch_changes(const agent_protocol::WatchChanges &request, Clock::time_point deadline,
                              const LineFn &log);
    // The changes that came so far, oldest first (emptied). Past
    // kHeldChanges untaken, the oldest are dropped and counted: the caller
    // then compares the whole tree instead.
    std::vector<agent_protocol::ContainerChange> take_changes();
    static constexpr std::size_t kHeldChanges = 100'000;
    std::uint64_t dropped_changes() const noexcept { return dropped_changes_; }
    // Waits until a change came or the deadline passed, for a caller with no
    // request to make; then take_changes(). Throws AgentSessionBroken when
    // the session ended or an answer came that nobody asked for.
    void wait_for_changes(Clock::time_point deadline);
    // Whether interrupt() ends wait_for_changes() at once (see AgentTransport).
    bool interruptible() const { return transport_->interruptible(); }
    // [thread-safe, while no move_to_socket() runs] Ends the
    // wait_for_changes() under way and every later one at once: the
    // session's owner stops.
    void interrupt() { transport_->interrupt(); }

private:
    AgentSession(std::unique_ptr<AgentTransport> transport, LineFn on_stderr);
    void stdout_bytes(std::string_view data) override { decoder_.feed(data); }
    // The next frame decoded, changes kept aside; nullopt when none is whole yet.
    std::optional<agent_protocol::Frame> next_answer();
    void keep_change(const agent_protocol::Frame &frame);
    void keep_change_part(const agent_protocol::Frame &frame);
    void stderr_bytes(std::string_view data) override { stderr_lines_.feed(data); }
    void stderr_line(std::string_view line);
    // Reads until the stream ends or the deadline passes.
    void await_end(Clock::time_point deadline);
    void stream_ended();
    [[noreturn]] void broken(const std::string &doing);

    std::unique_ptr<AgentTransport> transport_;
    LineFn stderr_sink_;
    std::deque<std::string> held_lines_;
    std::size_t dropped_lines_ = 0;
    common::LineSplitter stderr_lines_;
    agent_protocol::FrameDecoder decoder_;
    std::string description_;
    std::uint32_t version_ = 0;
    bool watching_ = false;        // changes may come unasked, a frame of one half received
    bool told_one_way_ = false;    // an older agent's sync back refusal was logged
    bool told_unguarded_ = false;  // an older agent's unguarded forward writes were logged
    std::deque<agent_protocol::ContainerChange> changes_;
    std::map<std::uint32_t, std::uint64_t> max_file_bytes_;     // of each watch asked for
    std::optional<agent_protocol::ContainerChangePart> parts_;  // of a large file so far, joined
    std::uint64_t dropped_changes_ = 0;
    bool stream_ended_ = false;  // the transport said so
    bool unusable_ = false;      // ended, or out of step with the agent
};

}  // namespace liveupdate::agent_client
