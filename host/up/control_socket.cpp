#include "host/up/control_socket.hpp"
#include "common/mutex.hpp"

#include <fcntl.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <stdexcept>

#include "common/json_fields.hpp"

namespace liveupdate::host::up {
namespace json = boost::json;

namespace {

using Clock = std::chrono::steady_clock;

constexpr std::size_t kMaxRequestBytes = std::size_t{64} * 1024;
// Answers grow with the number of objects; this only stops a runaway peer.
constexpr std::size_t kMaxAnswerBytes = std::size_t{1} << 30;
constexpr auto kRequestDeadline = std::chrono::seconds(5);  // whole request, however it trickles in
constexpr auto kAnswerDeadline = std::chrono::seconds(10);  // whole answer, to a client that reads
constexpr auto kClientDeadline = std::chrono::seconds(60);  // the CLI waiting for a big answer
constexpr unsigned kMaxClients = 64;

sockaddr_un address_of(const std::string &path) {
    sockaddr_un addr{};
    addr.sun_family = AF_UNIX;
    if (path.size() >= sizeof addr.sun_path)
        throw std::runtime_error("control socket path too long (max " + std::to_string(sizeof addr.sun_path - 1) +
                                 " bytes): " + path);
    std::memcpy(addr.sun_path, path.c_str(), path.size() + 1);
    return addr;
}

std::string sys_error(const std::string &what) { return what + ": " + std::strerror(errno); }

// Waits until fd is ready for events; false on the deadline, a stop (stop_fd
// readable; -1 for none) or an error.
bool ready(int fd, short events, int stop_fd, Clock::time_point deadline) {
    for (;;) {
        const auto left = std::chrono::ceil<std::chrono::milliseconds>(deadline - Clock::now()).count();
        if (left <= 0) return false;
        pollfd fds[2] = {{fd, events, 0}, {stop_fd, POLLIN, 0}};
        const int n = ::poll(fds, 2, static_cast<int>(std::min<long long>(left, 60'000)));
        if (n < 0 && errno == EINTR) continue;
        if (n < 0 || (fds[1].revents & POLLIN)) return false;
        if (fds[0].revents != 0) return true;
    }
}

// fd is non-blocking: a peer that stops reading cannot hold the writer past the deadline.
bool send_all(int fd, const std::string &text, int stop_fd, Clock::time_point deadline) {
    std::size_t sent = 0;
    while (sent < text.size()) {
        const ssize_t n = ::send(fd, text.data() + sent, text.size() - sent, MSG_NOSIGNAL);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
            if (!ready(fd, POLLOUT, stop_fd, deadline)) return false;
            continue;
        }
        if (n <= 0) return false;
        sent += static_cast<std::size_t>(n);
    }
    return true;
}

// Reads until a newline or the peer's end of writing, at most limit bytes, by the deadline.
bool read_line(int fd, std::string &out, std::size_t limit, int stop_fd, Clock::time_point deadline) {
    char buf[64 * 1024];
    std::size_t scanned = 0;
    for (;;) {
        const ssize_t n = ::recv(fd, buf, sizeof buf, 0);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
            if (!ready(fd, POLLIN, stop_fd, deadline)) return false;
            continue;
        }
        if (n < 0) return false;
        if (n == 0) return !out.empty();
        out.append(buf, static_cast<std::size_t>(n));
        if (const std::size_t nl = out.find('\n', scanned); nl != std::string::npos) {
            out.resize(nl);
            return true;
        }
        scanned = out.size();
        if (out.size() > limit) return false;
    }
}

int connect_to(const std::string &path) {
    const sockaddr_un addr = address_of(path);
    const int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) throw std::runtime_error(sys_error("socket"));
    if (::connect(fd, reinterpret_cast<const sockaddr *>(&addr), sizeof addr) != 0) {
        const int err = errno;
        ::close(fd);
        errno = err;
        return -1;
    }
    ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) | O_NONBLOCK);  // after connect: the I/O has deadlines
    return fd;
}

// What is at path may only be replaced when it is a socket nobody answers on
// (a daemon that died): a mistyped --control-socket must not delete a file.
void clear_stale_socket(const std::string &path) {
    struct stat st {};
    if (::lstat(path.c_str(), &st) != 0) {
        if (errno == ENOENT) return;
        throw std::runtime_error(sys_error("cannot inspect the control socket path " + path));
    }
    if (!S_ISSOCK(st.st_mode))
        throw std::runtime_error("the control socket path " + path +
                                 " is taken by something that is not a socket; refusing to replace it "
                                 "(choose another --control-socket or LU_HOST_CONTROL_SOCKET)");
    if (const int probe = connect_to(path); probe >= 0) {
        ucred peer{};
        socklen_t size = sizeof peer;
        const bool known = ::getsockopt(probe, SOL_SOCKET, SO_PEERCRED, &peer, &size) == 0 && peer.pid > 0;
        ::close(probe);
        throw std::runtime_error("another lu-host up" + (known ? " (pid " + std::to_string(peer.pid) + ")" : "") +
                                 " already serves the control socket " + path);
    }
    ::unlink(path.c_str());
}

}  // namespace

std::string default_control_socket_path() {
    if (const char *env = std::getenv("LU_HOST_CONTROL_SOCKET"); env != nullptr && *env != '\0') return env;
    if (const char *xdg = std::getenv("XDG_RUNTIME_DIR"); xdg != nullptr && *xdg != '\0')
        return std::string(xdg) + "/lu-host/control.sock";
    return "/tmp/lu-host-" + std::to_string(::getuid()) + "/control.sock";
}

ControlServer::ControlServer(std::string path, Handler handler) : path_(std::move(path)), handler_(std::move(handler)) {
    const std::filesystem::path dir = std::filesystem::path(path_).parent_path();
    if (!dir.empty() && ::mkdir(dir.c_str(), 0700) != 0 && errno != EEXIST)
        throw std::runtime_error(sys_error("cannot create the control socket folder " + dir.string()));
    // Nobody else may own the folder: they could replace the socket.
    struct stat st {};
    if (!dir.empty() && (::lstat(dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode) || st.st_uid != ::getuid()))
        throw std::runtime_error("the control socket folder " + dir.string() + " is not a folder owned by this user");
    clear_stale_socket(path_);
    const sockaddr_un addr = address_of(path_);
    listen_fd_ = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (listen_fd_ < 0) throw std::runtime_error(sys_error("socket"));
    const int bound = ::bind(listen_fd_, reinterpret_cast<const sockaddr *>(&addr), sizeof addr);
    if (bound != 0 || ::listen(listen_fd_, 64) != 0) {
        const std::string why = sys_error("cannot listen on the control socket " + path_);
        ::close(listen_fd_);
        throw std::runtime_error(why);
    }
    ::chmod(path_.c_str(), 0600);
    stop_fd_ = ::eventfd(0, EFD_CLOEXEC);
    thread_ = std::thread([this] { serve(); });
}

ControlServer::~ControlServer() {
    const std::uint64_t one = 1;
    if (::write(stop_fd_, &one, sizeof one) < 0) {
        // An eventfd write only fails on overflow, which one write cannot cause.
    }
    if (thread_.joinable()) thread_.join();
    {
        // Clients see the stop at once (they poll stop_fd_); only a handler in progress is waited for.
        common::MutexLock lock(clients_mutex_);
        lock.wait(clients_done_, [this]() LU_REQUIRES(clients_mutex_) { return clients_ == 0; });
    }
    ::close(listen_fd_);
    ::close(stop_fd_);
    ::unlink(path_.c_str());
}

void ControlServer::serve() {
    for (;;) {
        pollfd fds[2] = {{stop_fd_, POLLIN, 0}, {listen_fd_, POLLIN, 0}};
        if (::poll(fds, 2, -1) < 0 && errno != EINTR) return;
        if (fds[0].revents & POLLIN) return;
        if (!(fds[1].revents & POLLIN)) continue;
        const int fd = ::accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC | SOCK_NONBLOCK);
        if (fd < 0) continue;
        {
            common::MutexLock lock(clients_mutex_);
            if (clients_ >= kMaxClients) {
                ::close(fd);  // the client sees the connection closed and reports no answer
                continue;
            }
            ++clients_;
        }
        std::thread([this, fd] {
            serve_client(fd);
            ::close(fd);
            common::MutexLock lock(clients_mutex_);
            --clients_;
            clients_done_.notify_all();
        }).detach();
    }
}

void ControlServer::serve_client(int fd) {
    std::string line;
    json::value answer;
    if (!read_line(fd, line, kMaxRequestBytes, stop_fd_, Clock::now() + kRequestDeadline)) {
        answer = json::object{{"error", "no request received"}};
    } else {
        try {
            json::value request = common::parse_limited(line, kMaxRequestBytes);
            if (!request.is_object()) throw std::invalid_argument("a request is a JSON object");
            answer = handler_(request.as_object());
        } catch (const std::exception &e) {
            answer = json::object{{"error", std::string("bad request: ") + e.what()}};
        }
    }
    send_all(fd, json::serialize(answer) + "\n", stop_fd_, Clock::now() + kAnswerDeadline);
}

json::value control_request(const std::string &path, const json::object &request) {
    const int fd = connect_to(path);
    if (fd < 0)
        throw std::runtime_error(sys_error("no lu-host up answers at " + path + " (is it running? --control-socket)"));
    std::string answer;
    const auto deadline = Clock::now() + kClientDeadline;
    const bool ok = send_all(fd, json::serialize(request) + "\n", -1, deadline) &&
                    read_line(fd, answer, kMaxAnswerBytes, -1, deadline);
    ::close(fd);
    if (!ok) throw std::runtime_error("the daemon at " + path + " gave no answer");
    try {
        return common::parse_limited(answer, kMaxAnswerBytes);
    } catch (const common::DecodeError &e) {
        throw std::runtime_error("the daemon at " + path + " answered: " + e.what());
    }
}

}  // namespace liveupdate::host::up
