// A TCP listener on 127.0.0.1 that forwards each connection to a unix socket,
// half-closes included: lets tests reach the local Docker engine through a
// tcp:// DOCKER_HOST. A hook sees each piece the client sends before it is
// passed on (to act between two requests of the updater's).
#pragma once

#include <atomic>
#include <functional>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

namespace lu_test {

class TcpUnixProxy {
public:
    // Called on a connection's thread with each piece from the client, before it goes on.
    using ClientBytesFn = std::function<void(std::string_view)>;

    explicit TcpUnixProxy(std::string unix_path, ClientBytesFn on_client_bytes = {});
    ~TcpUnixProxy();
    TcpUnixProxy(const TcpUnixProxy &) = delete;
    TcpUnixProxy &operator=(const TcpUnixProxy &) = delete;
    int port() const { return port_; }
    int connections() const { return connections_.load(); }

private:
    void accept_loop();
    void pump(int tcp_fd, int unix_fd);

    std::string unix_path_;
    ClientBytesFn on_client_bytes_;
    int listen_fd_ = -1;
    int stop_pipe_[2] = {-1, -1};
    int port_ = 0;
    std::atomic<int> connections_{0};
    std::thread acceptor_;
    std::vector<std::thread> pumps_;
};

}  // namespace lu_test
