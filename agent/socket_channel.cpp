#include "agent/socket_channel.hpp"

#include <poll.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <optional>
#include <string>

namespace liveupdate::agent {
namespace {

using Clock = std::chrono::steady_clock;

// The longest wait for the host's connection, whatever it asks.
constexpr std::uint32_t kMaxWaitMs = 30'000;

int remaining_ms(Clock::time_point deadline) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
    return left <= 0 ? 0 : static_cast<int>(left);
}

// A name nobody can guess or reuse: a socket left by a killed agent is never ours to take.
std::string random_name() {
    unsigned char bytes[8] = {};
    std::size_t got = 0;
    while (got < sizeof bytes) {
        const auto n = ::getrandom(bytes + got, sizeof bytes - got, 0);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) return {};
        got += static_cast<std::size_t>(n);
    }
    std::string name = "lu-agent-";
    char hex[3];
    for (unsigned char b : bytes) {
        std::snprintf(hex, sizeof hex, "%02x", b);
        name += hex;
    }
    return name + ".sock";
}

agent_protocol::SocketReply failed(int error, const std::string &what) {
    return {error, what + ": " + std::strerror(error), {}};
}

// Binds and listens at a new path in dir, private to the agent's user (0600).
agent_protocol::SocketReply listen_in(const std::string &dir, UniqueFd &listener) {
    if (const auto problem = agent_protocol::path_problem(dir); !problem.empty())
        return {EINVAL, "open socket request: dir: " + problem, {}};
    const std::string name = random_name();
    if (name.empty()) return failed(errno, "choosing a socket name");
    const std::string path = dir + (dir.ends_with('/') ? "" : "/") + name;
    sockaddr_un address{};
    address.sun_family = AF_UNIX;
    if (path.size() >= sizeof address.sun_path) return {ENAMETOOLONG, "the socket path " + path + " is too long", {}};
    std::memcpy(address.sun_path, path.c_str(), path.size() + 1);
    listener = UniqueFd(::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0));
    if (listener.get() < 0) return failed(errno, "creating a socket");
    const mode_t old_mask = ::umask(0177);
    const int bound = ::bind(listener.get(), reinterpret_cast<const sockaddr *>(&address), sizeof address);
    const int bind_error = errno;
    ::umask(old_mask);
    if (bound != 0) return failed(bind_error, "binding a socket at " + path);
    if (::listen(listener.get(), 1) != 0) {
        const int error = errno;
        ::unlink(path.c_str());
        return failed(error, "listening at " + path);
    }
    return {0, {}, path};
}

// The first frame on the connection, by the deadline; nullopt when it ended or broke first.
std::optional<agent_protocol::Frame> first_frame(int connection, Clock::time_point deadline) {
    agent_protocol::FrameDecoder decoder;
    char buffer[4096];
    for (;;) {
        pollfd p{connection, POLLIN, 0};
        const int ready = ::poll(&p, 1, remaining_ms(deadline));
        if (ready < 0 && errno == EINTR) continue;
        if (ready <= 0) return std::nullopt;
        const auto got = ::read(connection, buffer, sizeof buffer);
        if (got < 0 && errno == EINTR) continue;
        if (got <= 0) return std::nullopt;
        decoder.feed(std::string_view(buffer, static_cast<std::size_t>(got)));
        if (auto frame = decoder.next()) return frame;
    }
}

// Takes one connection, or none when stdin has more first or the deadline passes.
UniqueFd accept_one(int listener, int stdin_fd, Clock::time_point deadline) {
    for (;;) {
        pollfd fds[2] = {{listener, POLLIN, 0}, {stdin_fd, POLLIN, 0}};
        const int ready = ::poll(fds, 2, remaining_ms(deadline));
        if (ready < 0 && errno == EINTR) continue;
        if (ready <= 0 || fds[1].revents != 0) return UniqueFd();
        const int connection = ::accept4(listener, nullptr, nullptr, SOCK_CLOEXEC);
        if (connection >= 0) return UniqueFd(connection);
        if (errno != EINTR && errno != ECONNABORTED) return UniqueFd();
    }
}

}  // namespace

UniqueFd open_socket(const agent_protocol::OpenSocket &request, int stdin_fd, FrameOutput &out) {
    UniqueFd listener;
    const auto reply = listen_in(request.dir, listener);
    const bool listening = reply.error == 0;
    if (!out.send(agent_protocol::encode(reply)) || !out.flush() || !listening) {
        if (listening) ::unlink(reply.path.c_str());
        return UniqueFd();
    }
    const auto deadline = Clock::now() + std::chrono::milliseconds(std::min(request.wait_ms, kMaxWaitMs));
    UniqueFd connection = accept_one(listener.get(), stdin_fd, deadline);
    ::unlink(reply.path.c_str());
    if (connection.get() < 0) return connection;
    bool welcome = false;
    try {
        const auto hello = first_frame(connection.get(), deadline);
        welcome = hello && agent_protocol::decode<agent_protocol::SocketHello>(*hello).token == request.client_token;
    } catch (const agent_protocol::ProtocolError &) {
        welcome = false;
    }
    if (!welcome) {
        std::fprintf(stderr, "lu-agent: a connection to the session's socket did not prove itself; staying on stdin\n");
        return UniqueFd();
    }
    FrameOutput answer(connection.get());
    if (!answer.send(agent_protocol::encode(agent_protocol::SocketWelcome{request.agent_token})) || !answer.flush())
        return UniqueFd();
    return connection;
}

}  // namespace liveupdate::agent
