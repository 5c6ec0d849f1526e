// The daemon's local control socket: a Unix stream socket, owner-only, one
// JSON request line in, one JSON answer out.
//
// Clients are served concurrently, each within whole-request deadlines (a
// slow or silent client neither blocks another nor holds the daemon's
// shutdown), and answers have no size limit on either side.
#pragma once

#include <condition_variable>
#include <functional>
#include <string>
#include <thread>

#include <boost/json.hpp>

#include "common/mutex.hpp"

namespace liveupdate::host::up {

// --control-socket, else $LU_HOST_CONTROL_SOCKET, else
// $XDG_RUNTIME_DIR/lu-host/control.sock, else /tmp/lu-host-<uid>/control.sock.
std::string default_control_socket_path();

class ControlServer {
public:
    using Handler = std::function<boost::json::value(const boost::json::object &request)>;

    // Creates the socket's folder (mode 0700 when it creates it) and binds the
    // socket (mode 0600). Throws std::runtime_error when another daemon answers
    // at that path, when something other than a socket is there (it is never
    // removed), or the socket cannot be made.
    ControlServer(std::string path, Handler handler);
    ControlServer(const ControlServer &) = delete;
    ControlServer &operator=(const ControlServer &) = delete;
    ~ControlServer();  // stops serving (clients in progress are dropped) and removes the socket file

    const std::string &path() const { return path_; }

private:
    void serve();
    void serve_client(int fd);

    std::string path_;
    Handler handler_;
    int listen_fd_ = -1;
    int stop_fd_ = -1;
    std::thread thread_;
    common::Mutex clients_mutex_;
    std::condition_variable clients_done_;
    unsigned clients_ LU_GUARDED_BY(clients_mutex_) = 0;  // client threads still running
};

// Sends one request; throws std::runtime_error saying why (e.g. no daemon).
boost::json::value control_request(const std::string &path, const boost::json::object &request);

}  // namespace liveupdate::host::up
