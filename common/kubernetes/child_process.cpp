#include "common/kubernetes/child_process.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>

extern char **environ;

namespace liveupdate::kubernetes {
namespace {

using Clock = std::chrono::steady_clock;

struct StdinClosed {};
struct DeadlinePassed {};

class Fd {
public:
    explicit Fd(int fd = -1) : fd_(fd) {}
    Fd(Fd &&o) noexcept : fd_(o.fd_) { o.fd_ = -1; }
    Fd &operator=(Fd &&o) noexcept {
        reset();
        fd_ = o.fd_;
        o.fd_ = -1;
        return *this;
    }
    ~Fd() { reset(); }
    void reset() {
        if (fd_ >= 0) ::close(fd_);
        fd_ = -1;
    }
    int get() const { return fd_; }

private:
    int fd_;
};

void make_pipe(Fd &read_end, Fd &write_end) {
    int fds[2];
    if (::pipe2(fds, O_CLOEXEC) != 0) throw std::runtime_error(std::string("pipe failed: ") + std::strerror(errno));
    read_end = Fd(fds[0]);
    write_end = Fd(fds[1]);
}

int remaining_ms(Clock::time_point deadline) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
    return left <= 0 ? 0 : static_cast<int>(std::min<long long>(left, 1 << 30));
}

// The parent's side of the three pipes.
class Pipes {
public:
    Pipes(Fd in, Fd out, Fd err, const ProcessOutputFn &on_output, Clock::time_point deadline)
        : in_(std::move(in)), out_(std::move(out)), err_(std::move(err)), on_output_(on_output), deadline_(deadline) {
        for (int fd : {in_.get(), out_.get(), err_.get()})
            if (fd >= 0) ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) | O_NONBLOCK);
    }

    void write(const char *data, std::size_t size) {
        while (size > 0) {
            if (in_.get() < 0) throw StdinClosed{};
            pollfd fds[3] = {{in_.get(), POLLOUT, 0}, {out_.get(), POLLIN, 0}, {err_.get(), POLLIN, 0}};
            const int ready = ::poll(fds, 3, remaining_ms(deadline_));
            if (ready < 0 && errno == EINTR) continue;
            if (ready == 0) throw DeadlinePassed{};
            drain(fds[1], out_, false);
            drain(fds[2], err_, true);
            if (fds[0].revents & (POLLERR | POLLHUP)) throw StdinClosed{};
            if (fds[0].revents & POLLOUT) {
                const auto n = ::write(in_.get(), data, size);
                if (n < 0) {
                    if (errno == EAGAIN || errno == EINTR) continue;
                    if (errno == EPIPE) throw StdinClosed{};
                    throw std::runtime_error(std::string("writing to the child's stdin: ") + std::strerror(errno));
                }
                data += n;
                size -= static_cast<std::size_t>(n);
            }
        }
    }

    void close_stdin() { in_.reset(); }

    // Reads stdout and stderr to their end.
    void read_to_end() {
        while (out_.get() >= 0 || err_.get() >= 0) {
            pollfd fds[2] = {{out_.get(), POLLIN, 0}, {err_.get(), POLLIN, 0}};
            const int ready = ::poll(fds, 2, remaining_ms(deadline_));
            if (ready < 0 && errno == EINTR) continue;
            if (ready == 0) throw DeadlinePassed{};
            drain(fds[0], out_, false);
            drain(fds[1], err_, true);
        }
    }

private:
    void drain(const pollfd &p, Fd &fd, bool is_stderr) {
        if (fd.get() < 0 || !(p.revents & (POLLIN | POLLHUP | POLLERR))) return;
        char buffer[16384];
        for (;;) {
            const auto n = ::read(fd.get(), buffer, sizeof buffer);
            if (n > 0) {
                on_output_(is_stderr, std::string_view(buffer, static_cast<std::size_t>(n)));
                continue;
            }
            if (n < 0 && errno == EINTR) continue;
            if (n < 0 && errno == EAGAIN) return;
            fd.reset(); // end of file or error
            return;
        }
    }

    Fd in_, out_, err_;
    const ProcessOutputFn &on_output_;
    Clock::time_point deadline_;
};

int wait_child(pid_t pid) {
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    if (WIFEXITED(status)) return WEXITSTATUS(status);
    if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
    return -1;
}

}  // namespace

ProcessResult run_process(const std::vector<std::string> &argv, const StdinFeeder *stdin_feeder,
                          const ProcessOutputFn &on_output, std::chrono::milliseconds timeout,
                          const std::vector<std::string> &extra_env) {
    if (argv.empty()) throw std::runtime_error("run_process: empty command");
    Fd in_r, in_w, out_r, out_w, err_r, err_w;
    make_pipe(out_r, out_w);
    make_pipe(err_r, err_w);
    if (stdin_feeder != nullptr) make_pipe(in_r, in_w);

    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    if (stdin_feeder != nullptr) posix_spawn_file_actions_adddup2(&actions, in_r.get(), 0);
    else posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_adddup2(&actions, out_w.get(), 1);
    posix_spawn_file_actions_adddup2(&actions, err_w.get(), 2);
    std::vector<char *> args;
    for (const auto &a : argv) args.push_back(const_cast<char *>(a.c_str()));
    args.push_back(nullptr);
    std::vector<std::string> env_strings;
    for (char **e = environ; *e != nullptr; ++e) {
        const std::string_view entry(*e);
        const auto name = entry.substr(0, entry.find('=') + 1);
        bool overridden = false;
        for (const auto &x : extra_env) overridden = overridden || x.compare(0, name.size(), name) == 0;
        if (!overridden) env_strings.emplace_back(entry);
    }
    env_strings.insert(env_strings.end(), extra_env.begin(), extra_env.end());
    std::vector<char *> env;
    for (auto &e : env_strings) env.push_back(e.data());
    env.push_back(nullptr);
    pid_t pid = 0;
    const int rc = ::posix_spawnp(&pid, args[0], &actions, nullptr, args.data(), env.data());
    posix_spawn_file_actions_destroy(&actions);
    if (rc != 0) throw std::runtime_error("cannot run '" + argv[0] + "': " + std::strerror(rc));
    in_r.reset();
    out_w.reset();
    err_w.reset();

    // Writing into a pipe whose reader died must not kill the host.
    sigset_t block, previous;
    sigemptyset(&block);
    sigaddset(&block, SIGPIPE);
    pthread_sigmask(SIG_BLOCK, &block, &previous);

    ProcessResult result;
    Pipes pipes(std::move(in_w), std::move(out_r), std::move(err_r), on_output, Clock::now() + timeout);
    try {
        if (stdin_feeder != nullptr) {
            try {
                (*stdin_feeder)([&pipes](const char *d, std::size_t n) { pipes.write(d, n); });
            } catch (const StdinClosed &) {
                // The program stopped reading (it ended early); its exit code tells why.
            }
        }
        pipes.close_stdin();
        pipes.read_to_end();
    } catch (const DeadlinePassed &) {
        ::kill(pid, SIGKILL);
        wait_child(pid);
        pthread_sigmask(SIG_SETMASK, &previous, nullptr);
        result.timed_out = true;
        result.exit_code = -1;
        return result;
    } catch (...) {
        ::kill(pid, SIGKILL);
        wait_child(pid);
        pthread_sigmask(SIG_SETMASK, &previous, nullptr);
        throw;
    }
    // A pending SIGPIPE from our writes is dropped before unblocking.
    timespec zero{0, 0};
    while (sigtimedwait(&block, nullptr, &zero) > 0) {
    }
    pthread_sigmask(SIG_SETMASK, &previous, nullptr);
    result.exit_code = wait_child(pid);
    return result;
}

}  // namespace liveupdate::kubernetes
