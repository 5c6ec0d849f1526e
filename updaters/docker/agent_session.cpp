#include "updaters/docker/agent_session.hpp"

#include <poll.h>
#include <sys/socket.h>

#include <cerrno>
#include <cstring>

#include "common/docker_engine/engine_error.hpp"

namespace liveupdate::docker {
namespace {

int remaining_ms(AgentSession::Clock::time_point deadline) {
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - AgentSession::Clock::now()).count();
    return left <= 0 ? 0 : static_cast<int>(std::min<long long>(left, 1 << 30));
}

}  // namespace

AgentSession::AgentSession(docker_engine::EngineClient &client, docker_engine::OpenExec exec, LineFn on_stderr)
    : client_(client),
      exec_id_(std::move(exec.exec_id)),
      connection_(std::move(exec.connection)),
      stderr_sink_(std::move(on_stderr)),
      stderr_lines_([this](std::string_view line) { stderr_line(line); }),
      demuxer_([this](docker_engine::OutputStream stream, std::string_view data) {
          if (stream == docker_engine::OutputStream::stderr_stream)
              stderr_lines_.feed(data);
          else
              decoder_.feed(data);
      }) {
    demuxer_.feed(exec.first_bytes);
}

std::unique_ptr<AgentSession> AgentSession::start(docker_engine::EngineClient &client,
                                                  const docker_engine::ExecSpec &spec,
                                                  std::chrono::milliseconds timeout, LineFn on_stderr) {
    std::unique_ptr<AgentSession> session(
        new AgentSession(client, docker_engine::open_exec(client, spec), std::move(on_stderr)));
    session->description_ = agent_client::handshake(*session, Clock::now() + timeout);
    session->route_stderr(nullptr);  // on_stderr is the starting update's log
    return session;
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

void AgentSession::drain() {
    char chunk[64 * 1024];
    while (!ended_) {
        const auto got = ::recv(connection_.fd(), chunk, sizeof chunk, 0);
        if (got > 0) {
            try {
                demuxer_.feed(std::string_view(chunk, static_cast<std::size_t>(got)));
            } catch (const std::runtime_error &e) {
                ended_ = true;
                broken(std::string("reading the agent's stream: ") + e.what());
            }
            continue;
        }
        if (got == 0 || errno == ECONNRESET) {
            ended_ = true;
            stderr_lines_.flush();
            return;
        }
        if (errno == EINTR) continue;
        if (errno == EAGAIN) return;
        ended_ = true;
        broken(std::string("recv failed: ") + std::strerror(errno));
    }
}

bool AgentSession::alive() {
    if (ended_) return false;
    pollfd p{connection_.fd(), POLLIN, 0};
    if (::poll(&p, 1, 0) > 0) {
        try {
            drain();
        } catch (const AgentSessionBroken &) {
            return false;
        }
    }
    // Unanswered frames with nothing asked mean a confused session: start over.
    return !ended_ && !decoder_.pending();
}

void AgentSession::send(std::string_view frame, Clock::time_point deadline) {
    while (!frame.empty()) {
        if (ended_) broken("sending a request");
        pollfd p{connection_.fd(), POLLOUT | POLLIN, 0};
        const int ready = ::poll(&p, 1, remaining_ms(deadline));
        if (ready < 0 && errno == EINTR) continue;
        if (ready == 0) throw AgentSessionBroken("the agent took no request for too long (stream stalled)");
        if (ready < 0) broken(std::string("poll failed: ") + std::strerror(errno));
        if (p.revents & (POLLIN | POLLHUP | POLLERR)) drain();
        if (!(p.revents & POLLOUT)) continue;
        const auto sent = ::send(connection_.fd(), frame.data(), frame.size(), MSG_NOSIGNAL);
        if (sent < 0) {
            if (errno == EAGAIN || errno == EINTR) continue;
            ended_ = true;
            broken(std::string("send failed: ") + std::strerror(errno));
        }
        frame.remove_prefix(static_cast<std::size_t>(sent));
    }
}

agent_protocol::Frame AgentSession::receive(Clock::time_point deadline) {
    for (;;) {
        std::optional<agent_protocol::Frame> frame;
        try {
            frame = decoder_.next();
        } catch (const agent_protocol::ProtocolError &e) {
            ended_ = true;
            broken(std::string("the agent's answer: ") + e.what());
        }
        if (frame) {
            if (frame->type != agent_protocol::MessageType::fatal) return std::move(*frame);
            ended_ = true;
            std::string why;
            try {
                why = agent_protocol::decode<agent_protocol::Fatal>(*frame).message;
            } catch (const agent_protocol::ProtocolError &e) {
                why = e.what();
            }
            throw AgentSessionBroken("the agent ended the session: " + why);
        }
        if (ended_) broken("waiting for the agent's answer");
        pollfd p{connection_.fd(), POLLIN, 0};
        const int ready = ::poll(&p, 1, remaining_ms(deadline));
        if (ready < 0 && errno == EINTR) continue;
        if (ready == 0) throw AgentAnswerLate("the agent did not answer in time");
        drain();
    }
}

int AgentSession::exit_code() {
    if (!ended_) return -1;
    try {
        return docker_engine::exec_exit_code(client_, exec_id_);
    } catch (const docker_engine::EngineError &) {
        return -1;
    }
}

void AgentSession::broken(const std::string &doing) {
    std::string message = doing + ": the agent's stream ended";
    if (ended_) {
        const int code = exit_code();
        if (code >= 0) message += " (agent exit code " + std::to_string(code) + ")";
    }
    throw AgentSessionBroken(message);
}

}  // namespace liveupdate::docker
