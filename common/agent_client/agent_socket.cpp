#include "common/agent_client/agent_socket.hpp"

#include <fcntl.h>
#include <poll.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <stdexcept>
#include <utility>

#include "common/agent_protocol/messages.hpp"
#include "common/open_beneath.hpp"
#include "common/unique_fd.hpp"

namespace liveupdate::agent_client {
namespace {

using Clock = std::chrono::steady_clock;
using common::UniqueFd;

// After the socket ended, how long the exec may take to end too (its exit code says why).
constexpr auto kExecEndWait = std::chrono::seconds(2);

int remaining_ms(Clock::time_point deadline) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
    return left <= 0 ? 0 : static_cast<int>(std::min<long long>(left, 1 << 30));
}

std::string errno_text(const std::string &what, int code = errno) { return what + ": " + std::strerror(code); }

// Sends all of data by the deadline (the peer answers only after the whole frame).
void send_all(int fd, std::string_view data, Clock::time_point deadline) {
    while (!data.empty()) {
        pollfd p{fd, POLLOUT, 0};
        const int ready = ::poll(&p, 1, remaining_ms(deadline));
        if (ready < 0 && errno == EINTR) continue;
        if (ready < 0) throw std::runtime_error(errno_text("waiting to send the socket hello"));
        if (ready == 0) throw std::runtime_error("the agent's socket took no hello in time");
        const auto sent = ::send(fd, data.data(), data.size(), MSG_NOSIGNAL | MSG_DONTWAIT);
        if (sent < 0 && (errno == EAGAIN || errno == EINTR)) continue;
        if (sent < 0) throw std::runtime_error(errno_text("sending the socket hello"));
        data.remove_prefix(static_cast<std::size_t>(sent));
    }
}

agent_protocol::Frame receive_one(int fd, Clock::time_point deadline) {
    agent_protocol::FrameDecoder decoder;
    char buffer[4096];
    for (;;) {
        pollfd p{fd, POLLIN, 0};
        const int ready = ::poll(&p, 1, remaining_ms(deadline));
        if (ready < 0 && errno == EINTR) continue;
        if (ready < 0) throw std::runtime_error(errno_text("waiting for the socket welcome"));
        if (ready == 0) throw std::runtime_error("no welcome on the agent's socket in time");
        const auto got = ::recv(fd, buffer, sizeof buffer, MSG_DONTWAIT);
        if (got < 0 && (errno == EAGAIN || errno == EINTR)) continue;
        if (got < 0) throw std::runtime_error(errno_text("reading the socket welcome"));
        if (got == 0) throw std::runtime_error("the agent's socket closed before its welcome");
        decoder.feed(std::string_view(buffer, static_cast<std::size_t>(got)));
        if (auto frame = decoder.next()) return std::move(*frame);
    }
}

}  // namespace

std::string random_token() {
    unsigned char bytes[16] = {};
    std::size_t got = 0;
    while (got < sizeof bytes) {
        const auto n = ::getrandom(bytes + got, sizeof bytes - got, 0);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) throw std::runtime_error(errno_text("getrandom"));
        got += static_cast<std::size_t>(n);
    }
    std::string token;
    char hex[3];
    for (unsigned char b : bytes) {
        std::snprintf(hex, sizeof hex, "%02x", b);
        token += hex;
    }
    return token;
}

namespace {

// The folder of in_root's last part, opened with every link in it resolved
// inside root (as the container resolves it); throws saying why not.
UniqueFd folder_in_root(const std::string &root, const std::string &in_root, const std::string &shown) {
    const UniqueFd root_fd(::open(root.empty() ? "/" : root.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC));
    if (root_fd.get() < 0) throw std::runtime_error(errno_text("connecting to " + shown + ": opening " + root));
    const auto slash = in_root.rfind('/');
    const std::string folder = slash == std::string::npos || slash == 0 ? "/" : in_root.substr(0, slash);
    common::OpenedFd opened = common::open_in_root(root_fd.get(), folder, O_PATH | O_DIRECTORY);
    if (!opened.ok())
        throw std::runtime_error(errno_text("connecting to " + shown + ": its folder in the container", opened.error));
    return std::move(opened.fd);
}

}  // namespace

int connect_agent_socket(const std::string &root, const std::string &in_root, const std::string &client_token,
                         const std::string &agent_token, Clock::time_point deadline) {
    const std::string shown = root + in_root;
    const auto slash = in_root.rfind('/');
    const std::string name = slash == std::string::npos ? in_root : in_root.substr(slash + 1);
    if (name.empty() || name == "." || name == "..")
        throw std::runtime_error("connecting to " + shown + ": not a socket's path");
    const UniqueFd folder = folder_in_root(root, in_root, shown);
    struct stat st {};
    if (::fstatat(folder.get(), name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0)
        throw std::runtime_error(errno_text("connecting to " + shown));
    if (!S_ISSOCK(st.st_mode)) throw std::runtime_error("connecting to " + shown + ": not a socket");
    // Through the folder's descriptor: nothing above the name is looked up again.
    const std::string path = "/proc/self/fd/" + std::to_string(folder.get()) + "/" + name;
    sockaddr_un address{};
    address.sun_family = AF_UNIX;
    if (path.size() >= sizeof address.sun_path) throw std::runtime_error("the socket path " + path + " is too long");
    std::memcpy(address.sun_path, path.c_str(), path.size() + 1);
    const int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) throw std::runtime_error(errno_text("creating a socket"));
    UniqueFd owned(fd);
    if (::connect(fd, reinterpret_cast<const sockaddr *>(&address), sizeof address) != 0)
        throw std::runtime_error(errno_text("connecting to " + shown));
    send_all(fd, agent_protocol::encode(agent_protocol::SocketHello{client_token}), deadline);
    const auto frame = receive_one(fd, deadline);
    std::string token;
    try {
        token = agent_protocol::decode<agent_protocol::SocketWelcome>(frame).token;
    } catch (const agent_protocol::ProtocolError &e) {
        throw std::runtime_error(std::string("the answer on ") + path + ": " + e.what());
    }
    if (token != agent_token) throw std::runtime_error("the socket at " + path + " is not the agent just started");
    return owned.release();
}

SocketAgentTransport::SocketAgentTransport(int socket, std::unique_ptr<AgentTransport> exec)
    : socket_(socket), exec_(std::move(exec)) {}

SocketAgentTransport::~SocketAgentTransport() { ::close(socket_); }

bool SocketAgentTransport::wait(short socket_events, Clock::time_point deadline, short &socket_ready,
                                bool &exec_ready) {
    for (;;) {
        pollfd fds[2] = {{socket_, socket_events, 0}, {exec_->readable_fd(), POLLIN, 0}};
        const int ready = ::poll(fds, fds[1].fd >= 0 ? 2 : 1, remaining_ms(deadline));
        if (ready < 0 && errno == EINTR) continue;
        if (ready < 0) {
            ended_ = true;
            failure_ = errno_text("poll failed");
            return true;
        }
        socket_ready = fds[0].revents;
        exec_ready = fds[1].revents != 0;
        return ready > 0;
    }
}

void SocketAgentTransport::drain(Sink &sink, bool socket_ready, bool exec_ready) {
    sink_ = &sink;
    // The exec ends when the agent does: then the session is over, whatever the socket holds.
    if (exec_ready && !exec_->idle(sink)) ended_ = true;
    char chunk[64 * 1024];
    while (socket_ready && !ended_) {
        const auto got = ::recv(socket_, chunk, sizeof chunk, MSG_DONTWAIT);
        if (got > 0) {
            sink.stdout_bytes(std::string_view(chunk, static_cast<std::size_t>(got)));
            continue;
        }
        if (got < 0 && errno == EINTR) continue;
        if (got < 0 && errno == EAGAIN) return;
        ended_ = true;
        if (got < 0 && errno != ECONNRESET) failure_ = errno_text("recv failed");
    }
}

bool SocketAgentTransport::idle(Sink &sink) {
    if (ended_) return false;
    short socket_ready = 0;
    bool exec_ready = false;
    if (wait(POLLIN, Clock::now(), socket_ready, exec_ready)) drain(sink, socket_ready != 0, exec_ready);
    return !ended_;
}

AgentTransport::Progress SocketAgentTransport::write(std::string_view data, Clock::time_point deadline, Sink &sink) {
    while (!data.empty()) {
        if (ended_) return Progress::ended;
        short socket_ready = 0;
        bool exec_ready = false;
        if (!wait(POLLIN | POLLOUT, deadline, socket_ready, exec_ready)) return Progress::timed_out;
        drain(sink, (socket_ready & (POLLIN | POLLHUP | POLLERR)) != 0, exec_ready);
        if (ended_ || !(socket_ready & POLLOUT)) continue;
        const auto sent = ::send(socket_, data.data(), data.size(), MSG_NOSIGNAL | MSG_DONTWAIT);
        if (sent < 0) {
            if (errno == EAGAIN || errno == EINTR) continue;
            ended_ = true;
            if (errno != EPIPE && errno != ECONNRESET) failure_ = errno_text("send failed");
            return Progress::ended;
        }
        data.remove_prefix(static_cast<std::size_t>(sent));
    }
    return Progress::done;
}

AgentTransport::Progress SocketAgentTransport::read(Clock::time_point deadline, Sink &sink) {
    if (ended_) return Progress::ended;
    short socket_ready = 0;
    bool exec_ready = false;
    if (!wait(POLLIN, deadline, socket_ready, exec_ready)) return Progress::timed_out;
    drain(sink, socket_ready != 0, exec_ready);
    return ended_ ? Progress::ended : Progress::done;
}

AgentTransport::End SocketAgentTransport::end() {
    if (!ended_) return {-1, failure_};
    // The socket may close a moment before the exec reports the agent's exit.
    if (sink_ != nullptr) {
        const auto deadline = Clock::now() + kExecEndWait;
        while (exec_->read(deadline, *sink_) == Progress::done) {
        }
    }
    End end = exec_->end();
    if (end.failure.empty()) end.failure = failure_;
    return end;
}

}  // namespace liveupdate::agent_client
