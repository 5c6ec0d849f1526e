#include "common/subprocess/run_process.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "common/subprocess/child_start.hpp"
#include "common/unique_fd.hpp"

namespace liveupdate::subprocess {
namespace {

using Clock = std::chrono::steady_clock;

struct StdinClosed {};
struct DeadlinePassed {};

using common::UniqueFd;

std::string cannot_run(const RunOptions &options) {
    return "cannot run '" + options.argv[0] + "'" + (options.cwd.empty() ? "" : " in " + options.cwd);
}

void make_pipe(UniqueFd &read_end, UniqueFd &write_end, const RunOptions &options) {
    int fds[2];
    if (::pipe2(fds, O_CLOEXEC) != 0) throw StartError(cannot_run(options) + ": pipe: " + std::strerror(errno));
    read_end = UniqueFd(fds[0]);
    write_end = UniqueFd(fds[1]);
}

bool passed(std::optional<Clock::time_point> deadline) { return deadline && Clock::now() >= *deadline; }

// Milliseconds for poll: -1 without a deadline.
int remaining_ms(std::optional<Clock::time_point> deadline) {
    if (!deadline) return -1;
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(*deadline - Clock::now()).count();
    return left <= 0 ? 0 : static_cast<int>(std::min<long long>(left, 1 << 30));
}

// The parent's side of the pipes.
class Pipes {
public:
    Pipes(UniqueFd in, UniqueFd out, UniqueFd err, const ProcessOutputFn &on_output,
          std::optional<Clock::time_point> deadline)
        : in_(std::move(in)), out_(std::move(out)), err_(std::move(err)), on_output_(on_output), deadline_(deadline) {
        for (const int fd : {in_.get(), out_.get(), err_.get()})
            if (fd >= 0) ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) | O_NONBLOCK);
    }

    void write(const char *data, std::size_t size) {
        if (size == 0) return look();
        while (size > 0) {
            if (in_.get() < 0) throw StdinClosed{};
            pollfd fds[3] = {{in_.get(), POLLOUT, 0}, {out_.get(), POLLIN, 0}, {err_.get(), POLLIN, 0}};
            const int ready = ::poll(fds, 3, remaining_ms(deadline_));
            if (ready < 0 && errno == EINTR) continue;
            if (ready == 0 || passed(deadline_)) throw DeadlinePassed{};
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

    // Reads the output there is, without waiting; throws once the child's stdin is closed (it ended).
    void look() {
        if (in_.get() < 0) throw StdinClosed{};
        if (passed(deadline_)) throw DeadlinePassed{};
        pollfd fds[3] = {{in_.get(), POLLOUT, 0}, {out_.get(), POLLIN, 0}, {err_.get(), POLLIN, 0}};
        if (::poll(fds, 3, 0) <= 0) return;
        drain(fds[1], out_, false);
        drain(fds[2], err_, true);
        if (fds[0].revents & (POLLERR | POLLHUP)) throw StdinClosed{};
    }

    // Reads stdout and stderr to their end.
    void read_to_end() {
        while (out_.get() >= 0 || err_.get() >= 0) {
            pollfd fds[2] = {{out_.get(), POLLIN, 0}, {err_.get(), POLLIN, 0}};
            const int ready = ::poll(fds, 2, remaining_ms(deadline_));
            if (ready < 0 && errno == EINTR) continue;
            if (ready == 0 || passed(deadline_)) throw DeadlinePassed{};
            drain(fds[0], out_, false);
            drain(fds[1], err_, true);
        }
    }

private:
    void drain(const pollfd &p, UniqueFd &fd, bool is_stderr) {
        if (fd.get() < 0 || !(p.revents & (POLLIN | POLLHUP | POLLERR))) return;
        char buffer[16384];
        for (;;) {
            const auto n = ::read(fd.get(), buffer, sizeof buffer);
            if (n > 0) {
                if (on_output_) on_output_(is_stderr, std::string_view(buffer, static_cast<std::size_t>(n)));
                continue;
            }
            if (n < 0 && errno == EINTR) continue;
            if (n < 0 && errno == EAGAIN) return;
            fd.reset();  // end of file or error
            return;
        }
    }

    UniqueFd in_, out_, err_;
    const ProcessOutputFn &on_output_;
    std::optional<Clock::time_point> deadline_;
};

int wait_exit_code(pid_t pid) {
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    return exit_code_of(status);
}

// Waits for the child (whose output has ended) until the deadline; false
// when it passed first. Without a pidfd the wait has no deadline.
bool exits_before(pid_t pid, std::optional<Clock::time_point> deadline) {
    if (!deadline) return true;
    const UniqueFd pidfd(static_cast<int>(::syscall(SYS_pidfd_open, pid, 0)));
    if (pidfd.get() < 0) return true;
    for (;;) {
        pollfd exited{pidfd.get(), POLLIN, 0};
        const int ready = ::poll(&exited, 1, remaining_ms(deadline));
        if (ready < 0 && errno == EINTR) continue;
        return ready != 0;
    }
}

// SIGPIPE blocked on this thread while it writes to the child's stdin:
// a child that stopped reading must not kill this process.
class SigpipeBlocked {
public:
    SigpipeBlocked() {
        sigemptyset(&sigpipe_);
        sigaddset(&sigpipe_, SIGPIPE);
        pthread_sigmask(SIG_BLOCK, &sigpipe_, &previous_);
    }
    SigpipeBlocked(const SigpipeBlocked &) = delete;
    SigpipeBlocked &operator=(const SigpipeBlocked &) = delete;
    ~SigpipeBlocked() {
        // A SIGPIPE our writes left pending is dropped before unblocking.
        const timespec zero{0, 0};
        while (sigtimedwait(&sigpipe_, nullptr, &zero) > 0) {
        }
        pthread_sigmask(SIG_SETMASK, &previous_, nullptr);
    }

private:
    sigset_t sigpipe_{};
    sigset_t previous_{};
};

}  // namespace

ProcessResult run_process(const RunOptions &options) {
    if (options.argv.empty()) throw StartError("run_process: empty command");
    const bool feeding = static_cast<bool>(options.feed_stdin);
    UniqueFd in_r, in_w, out_r, out_w, err_r, err_w;
    make_pipe(out_r, out_w, options);
    if (!options.merge_output) make_pipe(err_r, err_w, options);
    if (feeding) make_pipe(in_r, in_w, options);

    const StartedChild child = start_child({.argv = options.argv,
                                            .env = environment_with(options.extra_env),
                                            .cwd = options.cwd,
                                            .stdin_fd = in_r.get(),
                                            .stdout_fd = out_w.get(),
                                            .stderr_fd = options.merge_output ? out_w.get() : err_w.get()});
    if (child.pid < 0) throw StartError(cannot_run(options) + ": " + start_failure_text(child));
    in_r.reset();
    out_w.reset();
    err_w.reset();

    std::optional<Clock::time_point> deadline;
    if (options.timeout) deadline = Clock::now() + *options.timeout;
    std::optional<SigpipeBlocked> sigpipe_blocked;
    if (feeding) sigpipe_blocked.emplace();
    Pipes pipes(std::move(in_w), std::move(out_r), std::move(err_r), options.on_output, deadline);
    try {
        if (feeding) {
            try {
                options.feed_stdin([&pipes](const char *d, std::size_t n) { pipes.write(d, n); });
            } catch (const StdinClosed &) {
                // The program stopped reading (it ended early); its exit code tells why.
            }
        }
        pipes.close_stdin();
        pipes.read_to_end();
        if (!exits_before(child.pid, deadline)) throw DeadlinePassed{};
    } catch (const DeadlinePassed &) {
        ::kill(child.pid, SIGKILL);
        wait_exit_code(child.pid);
        return ProcessResult{-1, true};
    } catch (...) {
        ::kill(child.pid, SIGKILL);
        wait_exit_code(child.pid);
        throw;
    }
    return ProcessResult{wait_exit_code(child.pid), false};
}

}  // namespace liveupdate::subprocess
