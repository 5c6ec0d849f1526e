#include "tests/docker/tcp_unix_proxy.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cstring>
#include <stdexcept>

namespace lu_test {

TcpUnixProxy::TcpUnixProxy(std::string unix_path, ClientBytesFn on_client_bytes)
    : unix_path_(std::move(unix_path)), on_client_bytes_(std::move(on_client_bytes)) {
    listen_fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof addr;
    if (::bind(listen_fd_, reinterpret_cast<sockaddr *>(&addr), sizeof addr) != 0 || ::listen(listen_fd_, 16) != 0 ||
        ::getsockname(listen_fd_, reinterpret_cast<sockaddr *>(&addr), &len) != 0 || ::pipe(stop_pipe_) != 0)
        throw std::runtime_error(std::string("proxy setup: ") + std::strerror(errno));
    port_ = ntohs(addr.sin_port);
    acceptor_ = std::thread([this] { accept_loop(); });
}

TcpUnixProxy::~TcpUnixProxy() {
    (void)!::write(stop_pipe_[1], "x", 1);
    acceptor_.join();
    for (auto &t : pumps_) t.join();
    ::close(listen_fd_);
    ::close(stop_pipe_[0]);
    ::close(stop_pipe_[1]);
}

void TcpUnixProxy::accept_loop() {
    for (;;) {
        pollfd fds[2] = {{listen_fd_, POLLIN, 0}, {stop_pipe_[0], POLLIN, 0}};
        if (::poll(fds, 2, -1) < 0) continue;
        if (fds[1].revents) return;
        const int tcp_fd = ::accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC);
        if (tcp_fd < 0) continue;
        const int unix_fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
        sockaddr_un ua{};
        ua.sun_family = AF_UNIX;
        std::strncpy(ua.sun_path, unix_path_.c_str(), sizeof ua.sun_path - 1);
        if (::connect(unix_fd, reinterpret_cast<sockaddr *>(&ua), sizeof ua) != 0) {
            ::close(tcp_fd);
            ::close(unix_fd);
            continue;
        }
        ++connections_;
        pumps_.emplace_back([this, tcp_fd, unix_fd] { pump(tcp_fd, unix_fd); });
    }
}

// Copies both ways; an end of input on one side becomes a half-close of the other.
void TcpUnixProxy::pump(int a, int b) {
    bool a_open = true, b_open = true;
    char buffer[65536];
    while (a_open || b_open) {
        pollfd fds[2] = {{a_open ? a : -1, POLLIN, 0}, {b_open ? b : -1, POLLIN, 0}};
        if (::poll(fds, 2, -1) < 0) continue;
        for (int side = 0; side < 2; ++side) {
            if (!(fds[side].revents & (POLLIN | POLLHUP | POLLERR))) continue;
            const int from = side == 0 ? a : b;
            const int to = side == 0 ? b : a;
            const auto n = ::recv(from, buffer, sizeof buffer, 0);
            if (n <= 0) {
                ::shutdown(to, SHUT_WR);
                (side == 0 ? a_open : b_open) = false;
                continue;
            }
            if (side == 0 && on_client_bytes_) on_client_bytes_(std::string_view(buffer, static_cast<std::size_t>(n)));
            for (ssize_t off = 0; off < n;) {
                const auto sent = ::send(to, buffer + off, static_cast<size_t>(n - off), MSG_NOSIGNAL);
                if (sent <= 0) {
                    a_open = b_open = false;
                    break;
                }
                off += sent;
            }
        }
    }
    ::close(a);
    ::close(b);
}

}  // namespace lu_test
