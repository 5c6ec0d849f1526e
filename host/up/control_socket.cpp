#include "up/control_socket.hpp"

#include <poll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <stdexcept>

namespace liveupdate::up {
namespace json = boost::json;

namespace {

constexpr std::size_t kMaxRequestBytes = 64 * 1024;

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

bool send_all(int fd, const std::string &text) {
    std::size_t sent = 0;
    while (sent < text.size()) {
        const ssize_t n = ::send(fd, text.data() + sent, text.size() - sent, MSG_NOSIGNAL);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return false;
        sent += static_cast<std::size_t>(n);
    }
    return true;
}

// Reads until a newline or the peer's end of writing.
bool read_line(int fd, std::string &out) {
    char buf[4096];
    for (;;) {
        const ssize_t n = ::recv(fd, buf, sizeof buf, 0);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) return false;
        if (n == 0) return !out.empty();
        out.append(buf, static_cast<std::size_t>(n));
        if (const std::size_t nl = out.find('\n'); nl != std::string::npos) {
            out.resize(nl);
            return true;
        }
        if (out.size() > kMaxRequestBytes) return false;
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
    return fd;
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
    if (const int probe = connect_to(path_); probe >= 0) {
        ::close(probe);
        throw std::runtime_error("another lu-host up already serves the control socket " + path_ +
                                 " (use --control-socket to run a second one)");
    }
    ::unlink(path_.c_str());  // a stale socket of a daemon that died
    const sockaddr_un addr = address_of(path_);
    listen_fd_ = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (listen_fd_ < 0) throw std::runtime_error(sys_error("socket"));
    const int bound = ::bind(listen_fd_, reinterpret_cast<const sockaddr *>(&addr), sizeof addr);
    if (bound != 0 || ::listen(listen_fd_, 16) != 0) {
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
        const int fd = ::accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC);
        if (fd < 0) continue;
        timeval timeout{5, 0};
        ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof timeout);
        std::string line;
        json::value answer;
        if (!read_line(fd, line)) {
            answer = json::object{{"error", "no request received"}};
        } else {
            try {
                json::value request = json::parse(line);
                if (!request.is_object()) throw std::invalid_argument("a request is a JSON object");
                answer = handler_(request.as_object());
            } catch (const std::exception &e) {
                answer = json::object{{"error", std::string("bad request: ") + e.what()}};
            }
        }
        send_all(fd, json::serialize(answer) + "\n");
        ::close(fd);
    }
}

json::value control_request(const std::string &path, const json::object &request) {
    const int fd = connect_to(path);
    if (fd < 0)
        throw std::runtime_error(sys_error("no lu-host up answers at " + path + " (is it running? --control-socket)"));
    std::string answer;
    const bool ok = send_all(fd, json::serialize(request) + "\n") && read_line(fd, answer);
    ::close(fd);
    if (!ok) throw std::runtime_error("the daemon at " + path + " gave no answer");
    return json::parse(answer);
}

}  // namespace liveupdate::up
