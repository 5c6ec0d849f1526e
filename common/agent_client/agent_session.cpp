#include "common/agent_client/agent_session.hpp"

#include <stdexcept>

#include "common/agent_client/agent_socket.hpp"
#include "common/agent_protocol/messages.hpp"

namespace liveupdate::agent_client {
namespace {

// The exit code first: it tells a missing or unexecutable agent (127, 126) apart.
std::string how_it_ended(const AgentTransport::End &end) {
    std::string how;
    if (end.exit_code >= 0) how = "agent exit code " + std::to_string(end.exit_code);
    if (!end.failure.empty()) how += (how.empty() ? "" : "; ") + end.failure;
    return how.empty() ? how : " (" + how + ")";
}

// Bytes that were not a frame, as a line of text for a message.
std::string shown(std::string_view bytes) {
    constexpr std::size_t kShown = 240;
    std::string text;
    for (const char c : bytes.substr(0, kShown)) text += (c >= ' ' && c <= '~') ? c : ' ';
    while (!text.empty() && text.back() == ' ') text.pop_back();
    return bytes.size() > kShown ? text + "..." : text;
}

}  // namespace

AgentSession::AgentSession(std::unique_ptr<AgentTransport> transport, LineFn on_stderr)
    : transport_(std::move(transport)),
      stderr_sink_(std::move(on_stderr)),
      stderr_lines_([this](std::string_view line) { stderr_line(line); }) {}

std::unique_ptr<AgentSession> AgentSession::start(std::unique_ptr<AgentTransport> transport,
                                                  std::chrono::milliseconds timeout, LineFn on_stderr) {
    std::unique_ptr<AgentSession> session(new AgentSession(std::move(transport), std::move(on_stderr)));
    try {
        session->description_ = handshake(*session, Clock::now() + timeout, &session->version_);
    } catch (const AgentSessionBroken &e) {
        // An exec that ended says how (the agent missing, not executable), a silent one does not.
        const bool told = session->stream_ended_;  // then e already says how it ended
        // Text instead of a hello is the engine's complaint, its end on the way.
        const bool late = dynamic_cast<const AgentAnswerLate *>(&e) != nullptr;
        session->await_end(Clock::now() + (late ? std::chrono::milliseconds(0) : kEndAfterComplaint));
        if (!session->stream_ended_) throw;
        const auto end = session->transport_->end();
        throw AgentExecEnded(end.exit_code, told ? e.what() : e.what() + how_it_ended(end));
    }
    session->route_stderr(nullptr);  // on_stderr is the starting update's log
    return session;
}

std::string AgentSession::move_to_socket(const std::string &root, const std::string &agent_dir,
                                         std::chrono::milliseconds timeout) {
    const auto deadline = Clock::now() + timeout;
    agent_protocol::OpenSocket request{agent_dir, {}, {}, static_cast<std::uint32_t>(timeout.count())};
    try {
        request.client_token = random_token();
        request.agent_token = random_token();
    } catch (const std::runtime_error &e) {
        return e.what();
    }
    send(agent_protocol::encode(request), deadline);
    agent_protocol::SocketReply reply;
    try {
        reply = agent_protocol::decode<agent_protocol::SocketReply>(receive(deadline));
    } catch (const agent_protocol::ProtocolError &e) {
        unusable_ = true;
        throw AgentSessionBroken(std::string("the agent's answer to open a socket: ") + e.what());
    }
    if (reply.error != 0) return reply.message;
    try {
        const int socket = connect_agent_socket(root, reply.path, request.client_token, request.agent_token, deadline);
        transport_ = std::make_unique<SocketAgentTransport>(socket, std::move(transport_));
        description_ += " on its socket";
        return {};
    } catch (const std::runtime_error &e) {
        return e.what();
    }
}

void AgentSession::route_stderr(LineFn sink) {
    stderr_sink_ = std::move(sink);
    if (!stderr_sink_) return;
    if (dropped_lines_ > 0)
        stderr_sink_("(" + std::to_string(dropped_lines_) + " earlier line(s) of the agent's stderr dropped)");
    dropped_lines_ = 0;
    for (const auto &line : held_lines_) stderr_sink_(line);
    held_lines_.clear();
}

void AgentSession::stderr_line(std::string_view line) {
    if (stderr_sink_) return stderr_sink_(line);
    if (held_lines_.size() == kHeldLines) {
        held_lines_.pop_front();
        ++dropped_lines_;
    }
    held_lines_.emplace_back(line);
}

void AgentSession::await_end(Clock::time_point deadline) {
    while (!stream_ended_) {
        switch (transport_->read(deadline, *this)) {
        case AgentTransport::Progress::done: break;
        case AgentTransport::Progress::timed_out: return;
        case AgentTransport::Progress::ended: stream_ended(); return;
        }
    }
}

void AgentSession::stream_ended() {
    stream_ended_ = true;
    unusable_ = true;
    stderr_lines_.flush();
}

bool AgentSession::alive() {
    if (unusable_) return false;
    if (!transport_->idle(*this)) return false;
    // Unanswered frames with nothing asked mean a confused session: start over.
    try {
        if (next_answer()) unusable_ = true;
    } catch (const AgentSessionBroken &) {
        return false;
    }
    // Half a change may be on its way; half an answer nobody asked for is confusion.
    return !unusable_ && (watching_ || !decoder_.pending());
}

std::string AgentSession::watch_changes(const agent_protocol::WatchChanges &request, Clock::time_point deadline,
                                        const LineFn &log) {
    if (version_ < agent_protocol::kSyncBackVersion) {
        std::string why = "the agent speaks protocol version " + std::to_string(version_) + ", before sync back (" +
                          std::to_string(agent_protocol::kSyncBackVersion) + "): files stay one-way in this session";
        if (!told_one_way_ && log) log(why);
        told_one_way_ = true;
        return why;
    }
    send(agent_protocol::encode(request), deadline);
    watching_ = true;
    max_file_bytes_[request.watch_id] = request.max_file_bytes;
    agent_protocol::Result result;
    try {
        result = agent_protocol::decode<agent_protocol::Result>(receive(deadline));
    } catch (const agent_protocol::ProtocolError &e) {
        unusable_ = true;
        throw AgentSessionBroken(std::string("the agent's answer to watch changes: ") + e.what());
    }
    // The parts of a file of the watch this one replaced end with it (a refused one replaced none).
    if (result.error == 0 && parts_ && parts_->watch_id == request.watch_id) parts_.reset();
    return result.error == 0 ? std::string() : result.message;
}

std::vector<agent_protocol::ContainerChange> AgentSession::take_changes() {
    std::vector<agent_protocol::ContainerChange> taken(std::make_move_iterator(changes_.begin()),
                                                       std::make_move_iterator(changes_.end()));
    changes_.clear();
    return taken;
}

void AgentSession::wait_for_changes(Clock::time_point deadline) {
    for (;;) {
        if (next_answer()) {
            unusable_ = true;
            throw AgentSessionBroken("an answer from the agent that nobody asked for");
        }
        // What was read may hold changes: return at once rather than wait for more.
        if (!changes_.empty()) return;
        if (stream_ended_) broken("waiting for changes");
        switch (transport_->read(deadline, *this)) {
        case AgentTransport::Progress::done: break;
        case AgentTransport::Progress::timed_out: return;
        case AgentTransport::Progress::ended: stream_ended(); break;
        }
    }
}

void AgentSession::keep_change(const agent_protocol::Frame &frame) {
    agent_protocol::ContainerChange change;
    try {
        change = agent_protocol::decode<agent_protocol::ContainerChange>(frame);
    } catch (const agent_protocol::ProtocolError &e) {
        unusable_ = true;
        throw AgentSessionBroken(std::string("the agent's change: ") + e.what());
    }
    if (parts_) {
        if (parts_->watch_id != change.watch_id || parts_->path != change.path || change.has_content == 0) {
            unusable_ = true;
            throw AgentSessionBroken("the agent's change of '" + change.path + "' came after parts of '" +
                                     parts_->path + "'");
        }
        change.content.insert(0, parts_->data);
        parts_.reset();
        if (change.content.size() != change.size) {
            unusable_ = true;
            throw AgentSessionBroken("the agent's change of '" + change.path +
                                     "': " + std::to_string(change.content.size()) + " bytes came in parts, not " +
                                     std::to_string(change.size));
        }
    }
    if (changes_.size() == kHeldChanges) {
        changes_.pop_front();
        ++dropped_changes_;
    }
    changes_.push_back(std::move(change));
}

void AgentSession::keep_change_part(const agent_protocol::Frame &frame) {
    agent_protocol::ContainerChangePart part;
    try {
        part = agent_protocol::decode<agent_protocol::ContainerChangePart>(frame);
    } catch (const agent_protocol::ProtocolError &e) {
        unusable_ = true;
        throw AgentSessionBroken(std::string("the agent's change part: ") + e.what());
    }
    if (!parts_) parts_ = agent_protocol::ContainerChangePart{part.watch_id, part.path, {}};
    const auto limit = max_file_bytes_.find(part.watch_id);
    std::string why;
    if (parts_->watch_id != part.watch_id || parts_->path != part.path)
        why = "a part of '" + part.path + "' among those of '" + parts_->path + "'";
    else if (limit == max_file_bytes_.end() || parts_->data.size() + part.data.size() > limit->second)
        why = "parts of '" + part.path + "' past the watch's size limit";
    if (!why.empty()) {
        unusable_ = true;
        throw AgentSessionBroken("the agent's change: " + why);
    }
    parts_->data += part.data;
}

void AgentSession::send(std::string_view frames, Clock::time_point deadline) {
    if (unusable_) broken("sending a request");
    switch (transport_->write(frames, deadline, *this)) {
    case AgentTransport::Progress::done: return;
    case AgentTransport::Progress::timed_out:
        throw AgentSessionBroken("the agent took no request for too long (stream stalled)");
    case AgentTransport::Progress::ended: break;
    }
    stream_ended();
    broken("sending a request");
}

std::optional<agent_protocol::Frame> AgentSession::next_answer() {
    for (;;) {
        std::optional<agent_protocol::Frame> frame;
        try {
            frame = decoder_.next();
        } catch (const agent_protocol::ProtocolError &e) {
            unusable_ = true;
            std::string why = std::string("the agent's answer: ") + e.what();
            if (description_.empty()) why += " (what came instead of its hello: \"" + shown(decoder_.unread()) + "\")";
            if (stream_ended_) why += how_it_ended(transport_->end());
            throw AgentSessionBroken(why);
        }
        const bool part = frame && frame->type == agent_protocol::MessageType::container_change_part;
        if (!frame || (!part && frame->type != agent_protocol::MessageType::container_change)) return frame;
        if (!watching_) {
            unusable_ = true;
            throw AgentSessionBroken("the agent sent a container change with no watch asked for");
        }
        if (part)
            keep_change_part(*frame);
        else
            keep_change(*frame);
    }
}

agent_protocol::Frame AgentSession::receive(Clock::time_point deadline) {
    for (;;) {
        std::optional<agent_protocol::Frame> frame = next_answer();
        if (frame) {
            if (frame->type != agent_protocol::MessageType::fatal) return std::move(*frame);
            unusable_ = true;
            std::string why;
            try {
                why = agent_protocol::decode<agent_protocol::Fatal>(*frame).message;
            } catch (const agent_protocol::ProtocolError &e) {
                why = e.what();
            }
            throw AgentSessionBroken("the agent ended the session: " + why);
        }
        if (stream_ended_) broken("waiting for the agent's answer");
        switch (transport_->read(deadline, *this)) {
        case AgentTransport::Progress::done: break;
        case AgentTransport::Progress::timed_out: throw AgentAnswerLate("the agent did not answer in time");
        case AgentTransport::Progress::ended: stream_ended(); break;
        }
    }
}

void AgentSession::broken(const std::string &doing) {
    std::string message = doing + ": the agent's stream ended";
    if (stream_ended_) message += how_it_ended(transport_->end());
    throw AgentSessionBroken(message);
}

}  // namespace liveupdate::agent_client
