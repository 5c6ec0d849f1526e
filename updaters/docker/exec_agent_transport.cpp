#include "updaters/docker/exec_agent_transport.hpp"

#include <poll.h>
#include <sys/socket.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <stdexcept>

#include "common/docker_engine/engine_error.hpp"

namespace liveupdate::docker {
namespace {

int remaining_ms(agent_client::AgentTransport::Clock::time_point deadline) {
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - agent_client::AgentTransport::Clock::now())
            .count();
    return left <= 0 ? 0 : static_cast<int>(std::min<long long>(left, 1 << 30));
}

}  // namespace

ExecAgentTransport::ExecAgentTransport(docker_engine::EngineClient &client, const docker_engine::ExecSpec &spec)
    : ExecAgentTransport(client, docker_engine::open_exec(client, spec)) {}

ExecAgentTransport::ExecAgentTransport(docker_engine::EngineClient &client, docker_engine::OpenExec exec)
    : client_(client),
      exec_id_(std::move(exec.exec_id)),
      connection_(std::move(exec.connection)),
      first_bytes_(std::move(exec.first_bytes)),
      demuxer_([this](docker_engine::OutputStream stream, std::string_view data) {
          if (stream == docker_engine::OutputStream::stderr_stream)
              sink_->stderr_bytes(data);
          else
              sink_->stdout_bytes(data);
      }) {}

bool ExecAgentTransport::take_first_bytes(Sink &sink) {
    sink_ = &sink;
    if (first_bytes_.empty()) return false;
    try {
        demuxer_.feed(std::exchange(first_bytes_, {}));
    } catch (const std::runtime_error &e) {
        fail(std::string("reading the agent's stream: ") + e.what());
    }
    return true;
}

void ExecAgentTransport::fail(std::string why) {
    ended_ = true;
    failure_ = std::move(why);
}

void ExecAgentTransport::drain() {
    char chunk[64 * 1024];
    while (!ended_) {
        const auto got = ::recv(connection_.fd(), chunk, sizeof chunk, 0);
        if (got > 0) {
            try {
                demuxer_.feed(std::string_view(chunk, static_cast<std::size_t>(got)));
            } catch (const std::runtime_error &e) {
                fail(std::string("reading the agent's stream: ") + e.what());
            }
            continue;
        }
        if (got == 0 || errno == ECONNRESET) {
            ended_ = true;
            return;
        }
        if (errno == EINTR) continue;
        if (errno == EAGAIN) return;
        fail(std::string("recv failed: ") + std::strerror(errno));
    }
}

bool ExecAgentTransport::idle(Sink &sink) {
    take_first_bytes(sink);
    if (ended_) return false;
    pollfd p{connection_.fd(), POLLIN, 0};
    if (::poll(&p, 1, 0) > 0) drain();
    return !ended_;
}

ExecAgentTransport::Progress ExecAgentTransport::write(std::string_view data, Clock::time_point deadline, Sink &sink) {
    take_first_bytes(sink);
    while (!data.empty()) {
        if (ended_) return Progress::ended;
        pollfd p{connection_.fd(), POLLOUT | POLLIN, 0};
        const int ready = ::poll(&p, 1, remaining_ms(deadline));
        if (ready < 0 && errno == EINTR) continue;
        if (ready == 0) return Progress::timed_out;
        if (ready < 0) {
            fail(std::string("poll failed: ") + std::strerror(errno));
            return Progress::ended;
        }
        if (p.revents & (POLLIN | POLLHUP | POLLERR)) drain();
        if (!(p.revents & POLLOUT)) continue;
        const auto sent = ::send(connection_.fd(), data.data(), data.size(), MSG_NOSIGNAL);
        if (sent < 0) {
            if (errno == EAGAIN || errno == EINTR) continue;
            fail(std::string("send failed: ") + std::strerror(errno));
            return Progress::ended;
        }
        data.remove_prefix(static_cast<std::size_t>(sent));
    }
    return Progress::done;
}

ExecAgentTransport::Progress ExecAgentTransport::read(Clock::time_point deadline, Sink &sink) {
    if (take_first_bytes(sink)) return ended_ ? Progress::ended : Progress::done;
    for (;;) {
        if (ended_) return Progress::ended;
        if (interrupted_.woken()) return Progress::timed_out;
        pollfd p[2] = {{connection_.fd(), POLLIN, 0}, {interrupted_.fd(), POLLIN, 0}};
        const int ready = ::poll(p, 2, remaining_ms(deadline));
        if (ready < 0 && errno == EINTR) continue;
        if (ready == 0 || (ready > 0 && p[0].revents == 0)) return Progress::timed_out;
        drain();
        return ended_ ? Progress::ended : Progress::done;
    }
}

agent_client::AgentTransport::End ExecAgentTransport::end() {
    End end{-1, failure_};
    if (!ended_) return end;
    try {
        end.exit_code = docker_engine::exec_exit_code(client_, exec_id_);
    } catch (const docker_engine::EngineError &e) {
        end.failure += std::string(end.failure.empty() ? "" : "; ") + "its exit code is unknown: " + e.what();
    }
    return end;
}

}  // namespace liveupdate::docker
