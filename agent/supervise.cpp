#include "agent/supervise.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>

#include "agent/supervisor_link.hpp"
#include "common/subprocess/default_signals.hpp"
#include "common/unique_fd.hpp"

namespace liveupdate::agent {
namespace {

using Clock = std::chrono::steady_clock;
using common::UniqueFd;

constexpr int kForwarded[] = {SIGTERM, SIGINT, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2};
// A restart asked for during one of these does not start the app again: the container is stopping.
constexpr int kStopping[] = {SIGTERM, SIGINT, SIGQUIT};
// How long a connection may take to send its request (the children wait to be reaped meanwhile).
constexpr auto kRequestWait = std::chrono::seconds(2);
constexpr std::uint32_t kMaxGraceMs = 10 * 60 * 1000;

void say(const std::string &line) { std::fprintf(stderr, "lu-agent supervise: %s\n", line.c_str()); }

int exit_code_of(int status) {
    if (WIFEXITED(status)) return WEXITSTATUS(status);
    if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
    return 1;
}

int remaining_ms(Clock::time_point deadline) {
    if (deadline == Clock::time_point::max()) return -1;
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
    return left <= 0 ? 0 : static_cast<int>(left);
}

struct Started {
    pid_t pid = -1;
    int code = 0;     // when it could not start: 127 not found, 126 not executable
    std::string why;  // when it could not start
};

// The app in a process group of its own (the terminal's foreground one, if
// any, as tini does), so that a restart ends what it started too.
[[noreturn]] void exec_app(const std::vector<std::string> &argv, int report) {
    ::setpgid(0, 0);
    ::tcsetpgrp(STDIN_FILENO, ::getpgrp());  // SIGTTOU is still blocked here; no terminal: harmless
    subprocess::restore_default_signals();
    std::vector<char *> args;
    args.reserve(argv.size() + 1);
    for (const auto &arg : argv) args.push_back(const_cast<char *>(arg.c_str()));
    args.push_back(nullptr);
    ::execvp(args[0], args.data());
    const int error = errno;
    (void)!::write(report, &error, sizeof error);
    ::_exit(error == ENOENT ? 127 : 126);
}

Started start_app(const std::vector<std::string> &argv) {
    int report[2];
    if (::pipe2(report, O_CLOEXEC) != 0) return {-1, 126, std::string("pipe: ") + std::strerror(errno)};
    const pid_t pid = ::fork();
    if (pid == 0) exec_app(argv, report[1]);
    ::close(report[1]);
    if (pid < 0) {
        ::close(report[0]);
        return {-1, 126, std::string("fork: ") + std::strerror(errno)};
    }
    ::setpgid(pid, pid);
    int error = 0;
    ssize_t got;
    while ((got = ::read(report[0], &error, sizeof error)) < 0 && errno == EINTR) {
    }
    ::close(report[0]);
    if (got != static_cast<ssize_t>(sizeof error)) return {pid, 0, {}};  // the exec closed the pipe
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    return {-1, exit_code_of(status), argv[0] + ": " + std::strerror(error)};
}

// The control socket at the first of supervisor_socket_paths() where one can
// listen; nowhere when none (the app still runs, only not restartable).
class ControlSocket {
public:
    ControlSocket() {
        std::string why;
        for (const auto &path : supervisor_socket_paths()) {
            const std::string problem = listen_at(path);
            if (problem.empty()) return;
            why += (why.empty() ? "" : "; ") + problem;
        }
        say("no control socket, so no restart in place: " + why);
    }
    ~ControlSocket() {
        if (listener_.get() >= 0) ::unlink(path_.c_str());
    }
    ControlSocket(const ControlSocket &) = delete;
    ControlSocket &operator=(const ControlSocket &) = delete;

    int fd() const { return listener_.get(); }

private:
    // "" once listening at path, else why not.
    std::string listen_at(const std::string &path) {
        sockaddr_un address{};
        address.sun_family = AF_UNIX;
        if (path.size() >= sizeof address.sun_path) return path + ": the path is too long";
        std::memcpy(address.sun_path, path.c_str(), path.size() + 1);
        const auto slash = path.rfind('/');
        if (slash != std::string::npos && slash > 0) ::mkdir(path.substr(0, slash).c_str(), 0755);  // exists: fine
        UniqueFd fd(::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0));
        if (fd.get() < 0) return path + ": socket: " + std::strerror(errno);
        auto bind_private = [&] {
            const mode_t old_mask = ::umask(0177);  // 0600: the supervisor's user only
            const int bound = ::bind(fd.get(), reinterpret_cast<const sockaddr *>(&address), sizeof address);
            const int error = errno;
            ::umask(old_mask);
            return bound == 0 ? 0 : error;
        };
        int error = bind_private();
        if (error == EADDRINUSE) {
            // A socket left by a supervisor that was killed is taken over; a live one, or any other file, is not.
            struct stat st {};
            UniqueFd probe(::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0));
            const bool stale =
                ::lstat(path.c_str(), &st) == 0 && S_ISSOCK(st.st_mode) && probe.get() >= 0 &&
                ::connect(probe.get(), reinterpret_cast<const sockaddr *>(&address), sizeof address) != 0 &&
                errno == ECONNREFUSED;
            if (!stale) return path + ": in use (another supervisor, or not a socket)";
            ::unlink(path.c_str());
            error = bind_private();
        }
        if (error != 0) return path + ": bind: " + std::strerror(error);
        if (::listen(fd.get(), 4) != 0) {
            std::string why = path + ": listen: " + std::strerror(errno);
            ::unlink(path.c_str());
            return why;
        }
        listener_ = std::move(fd);
        path_ = path;
        return {};
    }

    UniqueFd listener_;
    std::string path_;
};

class Supervisor {
public:
    explicit Supervisor(const std::vector<std::string> &argv) : argv_(argv) {}

    int run() {
        // Orphans of the app come here to be reaped, also when this is not PID 1.
        ::prctl(PR_SET_CHILD_SUBREAPER, 1);
        sigset_t mask;
        sigemptyset(&mask);
        for (const int sig : kForwarded) sigaddset(&mask, sig);
        sigaddset(&mask, SIGCHLD);
        sigaddset(&mask, SIGTTOU);  // for the child's tcsetpgrp; restored before its exec
        ::sigprocmask(SIG_BLOCK, &mask, nullptr);
        sigdelset(&mask, SIGTTOU);
        signals_ = UniqueFd(::signalfd(-1, &mask, SFD_NONBLOCK | SFD_CLOEXEC));
        if (signals_.get() < 0) {
            say(std::string("signalfd: ") + std::strerror(errno));
            return 126;
        }
        ControlSocket control;
        const Started started = start_app(argv_);
        if (started.pid < 0) {
            say(started.why);
            return started.code;
        }
        app_ = started.pid;
        for (;;) {
            pollfd fds[2] = {{signals_.get(), POLLIN, 0}, {control.fd(), POLLIN, 0}};
            if (::poll(fds, control.fd() >= 0 ? 2 : 1, -1) < 0) {
                if (errno == EINTR) continue;
                say(std::string("poll: ") + std::strerror(errno));
                return 126;
            }
            if (fds[0].revents != 0) handle_signals();
            if (!app_ended_ && control.fd() >= 0 && fds[1].revents != 0) serve(control.fd());
            if (app_ended_) return app_code_;
        }
    }

private:
    // Forwards what came, reaps what ended.
    void handle_signals() {
        signalfd_siginfo info{};
        while (::read(signals_.get(), &info, sizeof info) == static_cast<ssize_t>(sizeof info)) {
            const int sig = static_cast<int>(info.ssi_signo);
            if (sig == SIGCHLD) {
                reap();
                continue;
            }
            for (const int stop : kStopping)
                if (sig == stop) stopping_ = true;
            // To the app alone, as a signal from the runtime to PID 1 would have come to it.
            if (!app_ended_) ::kill(app_, sig);
        }
    }

    void reap() {
        int status = 0;
        pid_t pid;
        while ((pid = ::waitpid(-1, &status, WNOHANG)) > 0)
            if (pid == app_) {
                app_code_ = exit_code_of(status);
                app_ended_ = true;
            }
    }

    // Handles signals until the app ended (true) or the deadline passed.
    bool wait_for_app(Clock::time_point deadline) {
        while (!app_ended_) {
            pollfd p{signals_.get(), POLLIN, 0};
            const int ready = ::poll(&p, 1, remaining_ms(deadline));
            if (ready < 0 && errno != EINTR) return false;
            if (ready == 0) return false;
            handle_signals();
        }
        return true;
    }

    // One connection: its request line, its answer line.
    void serve(int listener) {
        UniqueFd connection(::accept4(listener, nullptr, nullptr, SOCK_CLOEXEC));
        if (connection.get() < 0) return;
        ucred peer{};
        socklen_t size = sizeof peer;
        std::string answer;
        if (::getsockopt(connection.get(), SOL_SOCKET, SO_PEERCRED, &peer, &size) != 0 ||
            (peer.uid != ::getuid() && peer.uid != 0)) {
            answer = "error only the supervisor's user may ask";
        } else {
            answer = answer_to(request_line(connection.get()));
        }
        answer += "\n";
        (void)!::send(connection.get(), answer.data(), answer.size(), MSG_NOSIGNAL);
    }

    static std::string request_line(int fd) {
        const auto deadline = Clock::now() + kRequestWait;
        std::string line;
        char buffer[256];
        while (line.find('\n') == std::string::npos && line.size() < 256) {
            pollfd p{fd, POLLIN, 0};
            const int ready = ::poll(&p, 1, remaining_ms(deadline));
            if (ready < 0 && errno == EINTR) continue;
            if (ready <= 0) return {};
            const auto got = ::read(fd, buffer, sizeof buffer);
            if (got < 0 && errno == EINTR) continue;
            if (got <= 0) return {};
            line.append(buffer, static_cast<std::size_t>(got));
        }
        const auto end = line.find('\n');
        return end == std::string::npos ? std::string() : line.substr(0, end);
    }

    std::string answer_to(const std::string &request) {
        constexpr std::string_view kRestart = "restart ";
        if (!request.starts_with(kRestart)) return "error unknown request '" + request.substr(0, 64) + "'";
        const std::string number = request.substr(kRestart.size());
        char *end = nullptr;
        errno = 0;
        const unsigned long grace = std::strtoul(number.c_str(), &end, 10);
        if (number.empty() || *end != '\0' || errno != 0 || number.front() == '-')
            return "error the grace '" + number.substr(0, 32) + "' is not a number of milliseconds";
        return restart(static_cast<std::uint32_t>(std::min<unsigned long>(grace, kMaxGraceMs)));
    }

    std::string restart(std::uint32_t grace_ms) {
        stopping_ = false;
        const pid_t old = app_;
        say("restarting " + argv_[0] + " (pid " + std::to_string(old) + "): SIGTERM, SIGKILL after " +
            std::to_string(grace_ms) + " ms");
        // The whole group: a process the app started must not keep its port from the next one.
        ::kill(-old, SIGTERM);
        if (!wait_for_app(Clock::now() + std::chrono::milliseconds(grace_ms))) {
            say("pid " + std::to_string(old) + " did not end within the grace: SIGKILL");
            ::kill(-old, SIGKILL);
            wait_for_app(Clock::time_point::max());
        }
        ::kill(-old, SIGKILL);  // what the app left behind in its group
        if (stopping_) return "error the container is stopping: the app is not started again";
        const Started started = start_app(argv_);
        if (started.pid < 0) {
            say(started.why);
            app_code_ = started.code;
            return "error " + started.why;
        }
        app_ = started.pid;
        app_ended_ = false;
        say("started " + argv_[0] + " again: pid " + std::to_string(app_));
        return "ok " + std::to_string(old) + " " + std::to_string(app_);
    }

    std::vector<std::string> argv_;
    UniqueFd signals_;
    pid_t app_ = -1;
    int app_code_ = 0;
    bool app_ended_ = false;
    bool stopping_ = false;  // a stopping signal came (during a restart: no start again)
};

}  // namespace

int supervise(const std::vector<std::string> &argv) { return Supervisor(argv).run(); }

}  // namespace liveupdate::agent
