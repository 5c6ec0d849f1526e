#include "agent/supervisor_link.hpp"

#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>

#include "common/unique_fd.hpp"

namespace liveupdate::agent {
namespace {

using Clock = std::chrono::steady_clock;
using common::UniqueFd;

agent_protocol::Result failed(int error, const std::string &what) {
    return {error, what + ": " + std::strerror(error)};
}

// A connection to the supervisor at path; errno set when none.
UniqueFd connect_to(const std::string &path) {
    sockaddr_un address{};
    address.sun_family = AF_UNIX;
    if (path.size() >= sizeof address.sun_path) {
        errno = ENAMETOOLONG;
        return UniqueFd();
    }
    std::memcpy(address.sun_path, path.c_str(), path.size() + 1);
    UniqueFd fd(::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0));
    if (fd.get() < 0) return fd;
    if (::connect(fd.get(), reinterpret_cast<const sockaddr *>(&address), sizeof address) != 0) return UniqueFd();
    return fd;
}

// Only a supervisor of this user (or root) is believed: a socket planted in /tmp by another user is not ours.
bool trusted_peer(int fd) {
    ucred peer{};
    socklen_t size = sizeof peer;
    if (::getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &peer, &size) != 0) return false;
    return peer.uid == ::getuid() || peer.uid == 0;
}

// The answer line, by the deadline; "" when none came.
std::string answer_line(int fd, Clock::time_point deadline) {
    std::string line;
    char buffer[512];
    while (line.find('\n') == std::string::npos && line.size() < 4096) {
        const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
        if (left <= 0) return {};
        pollfd p{fd, POLLIN, 0};
        const int ready = ::poll(&p, 1, static_cast<int>(left));
        if (ready < 0 && errno == EINTR) continue;
        if (ready <= 0) return {};
        const auto got = ::read(fd, buffer, sizeof buffer);
        if (got < 0 && errno == EINTR) continue;
        if (got <= 0) break;
        line.append(buffer, static_cast<std::size_t>(got));
    }
    const auto end = line.find('\n');
    return end == std::string::npos ? std::string() : line.substr(0, end);
}

}  // namespace

std::vector<std::string> supervisor_socket_paths() {
    if (const char *set = std::getenv("LU_SUPERVISE_SOCKET"); set != nullptr && *set != '\0') return {set};
    return {"/.lu-agent/supervise.sock", "/tmp/lu-agent-supervise.sock"};
}

agent_protocol::Result restart_supervised(std::uint32_t grace_ms) {
    const auto paths = supervisor_socket_paths();
    UniqueFd connection;
    std::string reached;
    for (const auto &path : paths) {
        connection = connect_to(path);
        if (connection.get() >= 0) {
            reached = path;
            break;
        }
    }
    if (connection.get() < 0) {
        std::string looked;
        for (const auto &path : paths) looked += (looked.empty() ? "" : ", ") + path;
        return {agent_protocol::kNoSupervisor,
                "no lu-agent supervise runs in this container (no supervisor listens at " + looked + ")"};
    }
    if (!trusted_peer(connection.get()))
        return {EPERM, "the supervisor socket " + reached + " belongs to another user: not used"};
    const std::string request = "restart " + std::to_string(grace_ms) + "\n";
    if (::send(connection.get(), request.data(), request.size(), MSG_NOSIGNAL) != static_cast<ssize_t>(request.size()))
        return failed(errno, "asking the supervisor at " + reached + " for a restart");
    const auto deadline = Clock::now() + std::chrono::milliseconds(std::uint64_t{grace_ms} + kAnswerAllowanceMs);
    const std::string answer = answer_line(connection.get(), deadline);
    if (answer.starts_with("ok ")) {
        const std::string pids = answer.substr(3);
        const auto space = pids.find(' ');
        if (space != std::string::npos)
            return {0, "pid " + pids.substr(0, space) + ", now pid " + pids.substr(space + 1)};
    }
    if (answer.starts_with("error ")) return {ECANCELED, "the supervisor could not restart: " + answer.substr(6)};
    return {EPROTO, "the supervisor at " + reached + " gave no answer to a restart" +
                        (answer.empty() ? std::string() : ": '" + answer + "'")};
}

}  // namespace liveupdate::agent
