#include "tests/kubernetes/tcp_proxy.hpp"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstring>
#include <stdexcept>

namespace lu_test {

TcpProxy::TcpProxy(std::string target_host, int target_port)
    : host_(std::move(target_host)), target_port_(target_port) {
    listen_on(0);
}

TcpProxy::~TcpProxy() {
    cut();
    for (auto &t : pumps_) t.join();
}

void TcpProxy::listen_on(int port) {
    listen_fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    const int one = 1;
    ::setsockopt(listen_fd_, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    addr.sin_port = htons(static_cast<uint16_t>(port));
    socklen_t len = sizeof addr;
    if (::bind(listen_fd_, reinterpret_cast<sockaddr *>(&addr), sizeof addr) != 0 || ::listen(listen_fd_, 16) != 0 ||
        ::getsockname(listen_fd_, reinterpret_cast<sockaddr *>(&addr), &len) != 0 ||
        ::pipe2(stop_pipe_, O_CLOEXEC) != 0)
        throw std::runtime_error(std::string("proxy setup: ") + std::strerror(errno));
    port_ = ntohs(addr.sin_port);
    acceptor_ = std::thread([this, fd = listen_fd_, stop = stop_pipe_[0]] { accept_loop(fd, stop); });
}

void TcpProxy::stop_accepting() {
    if (listen_fd_ < 0) return;
    (void)!::write(stop_pipe_[1], "x", 1);
    acceptor_.join();
    ::close(listen_fd_);
    ::close(stop_pipe_[0]);
    ::close(stop_pipe_[1]);
    listen_fd_ = -1;
}

void TcpProxy::cut() {
    stop_accepting();
    std::lock_guard lock(mutex_);
    for (const int fd : open_fds_) ::shutdown(fd, SHUT_RDWR);
}

void TcpProxy::reopen() {
    if (listen_fd_ < 0) listen_on(port_);
}

void TcpProxy::accept_loop(int listen_fd, int stop_fd) {
    for (;;) {
        pollfd fds[2] = {{listen_fd, POLLIN, 0}, {stop_fd, POLLIN, 0}};
        if (::poll(fds, 2, -1) < 0) continue;
        if (fds[1].revents) return;
        const int client = ::accept4(listen_fd, nullptr, nullptr, SOCK_CLOEXEC);
        if (client < 0) continue;
        const int server = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        sockaddr_in addr{};
        addr.sin_family = AF_INET;
        addr.sin_port = htons(static_cast<uint16_t>(target_port_));
        ::inet_pton(AF_INET, host_.c_str(), &addr.sin_addr);
        if (::connect(server, reinterpret_cast<sockaddr *>(&addr), sizeof addr) != 0) {
            ::close(client);
            ::close(server);
            continue;
        }
        std::lock_guard lock(mutex_);
        open_fds_.insert(client);
        open_fds_.insert(server);
        pumps_.emplace_back([this, client, server] { pump(client, server); });
    }
}

void TcpProxy::pump(int a, int b) {
    char buffer[65536];
    bool a_open = true, b_open = true;
    while (a_open || b_open) {
        pollfd fds[2] = {{a, static_cast<short>(a_open ? POLLIN : 0), 0},
                         {b, static_cast<short>(b_open ? POLLIN : 0), 0}};
        if (::poll(fds, 2, -1) < 0) continue;
        for (int i = 0; i < 2; ++i) {
            if (fds[i].revents == 0) continue;
            const int from = i == 0 ? a : b, to = i == 0 ? b : a;
            const ssize_t n = ::read(from, buffer, sizeof buffer);
            if (n <= 0) {
                (i == 0 ? a_open : b_open) = false;
                ::shutdown(to, SHUT_WR);
                continue;
            }
            for (ssize_t off = 0; off < n;) {
                const ssize_t w = ::send(to, buffer + off, static_cast<size_t>(n - off), MSG_NOSIGNAL);
                if (w <= 0) break;
                off += w;
            }
        }
    }
    std::lock_guard lock(mutex_);
    open_fds_.erase(a);
    open_fds_.erase(b);
    ::close(a);
    ::close(b);
}

}  // namespace lu_test
