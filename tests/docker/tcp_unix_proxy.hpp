// A TCP listener on 127.0.0.1 that forwards each connection to a unix socket,
// half-closes included: lets tests reach the local Docker engine through a
// tcp:// DOCKER_HOST.
#pragma once

#include <atomic>
#include <string>
#include <thread>
#include <vector>

namespace lu_test {

class TcpUnixProxy {
public:
    explicit TcpUnixProxy(std::string unix_path);
    ~TcpUnixProxy();
    TcpUnixProxy(const TcpUnixProxy &) = delete;
    TcpUnixProxy &operator=(const TcpUnixProxy &) = delete;
    int port() const { return port_; }
    int connections() const { return connections_.load(); }

private:
    void accept_loop();
    static void pump(int tcp_fd, int unix_fd);

    std::string unix_path_;
    int listen_fd_ = -1;
    int stop_pipe_[2] = {-1, -1};
    int port_ = 0;
    std::atomic<int> connections_{0};
    std::thread acceptor_;
    std::vector<std::thread> pumps_;
};

}  // namespace lu_test
