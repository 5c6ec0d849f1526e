// A TCP forwarder on 127.0.0.1 that a test can cut (every connection closed,
// nothing accepted) and open again on the same port: stands for an API server
// that goes away and comes back, without touching the real one.
#pragma once

#include <atomic>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

namespace lu_test {

class TcpProxy {
public:
    TcpProxy(std::string target_host, int target_port);
    ~TcpProxy();
    TcpProxy(const TcpProxy &) = delete;
    TcpProxy &operator=(const TcpProxy &) = delete;

    int port() const { return port_; }
    void cut();     // closes the listener and every forwarded connection
    void reopen();  // listens again on the same port

private:
    void listen_on(int port);
    void accept_loop(int listen_fd, int stop_fd);
    void pump(int a, int b);
    void stop_accepting();

    std::string host_;
    int target_port_;
    int port_ = 0;
    int listen_fd_ = -1;
    int stop_pipe_[2] = {-1, -1};
    std::thread acceptor_;
    std::mutex mutex_;
    std::set<int> open_fds_;
    std::vector<std::thread> pumps_;
};

}  // namespace lu_test
