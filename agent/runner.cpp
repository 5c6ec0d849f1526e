#include "agent/runner.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "common/subprocess/default_signals.hpp"

namespace liveupdate::agent {
namespace {

using Clock = std::chrono::steady_clock;

// After a kill, output still held open by escaped processes is waited for this long.
constexpr auto kDrainAfterKill = std::chrono::milliseconds(500);

[[noreturn]] void report_and_exit(int report, int code, const std::string &why) {
    (void)!::write(report, why.data(), why.size());
    ::_exit(code);
}

[[noreturn]] void exec_child(const agent_protocol::Run &request, int out, int err, int report) {
    ::setpgid(0, 0);
    subprocess::restore_default_signals();
    const int null = ::open("/dev/null", O_RDONLY);
    if (null >= 0) ::dup2(null, 0);
    ::dup2(out, 1);
    ::dup2(err, 2);
    for (const auto &entry : request.env) {
        const auto eq = entry.find('=');
        if (eq != std::string::npos && eq > 0) ::setenv(entry.substr(0, eq).c_str(), entry.c_str() + eq + 1, 1);
    }
    if (!request.cwd.empty() && ::chdir(request.cwd.c_str()) != 0)
        report_and_exit(report, 126,
                        "cannot change to the working directory " + request.cwd + ": " + std::strerror(errno));
    std::vector<char *> argv;
    for (const auto &arg : request.argv) argv.push_back(const_cast<char *>(arg.c_str()));
    argv.push_back(nullptr);
    ::execvp(argv[0], argv.data());
    const int error = errno;
    report_and_exit(report, error == ENOENT ? 127 : 126, request.argv[0] + ": " + std::strerror(error));
}

int remaining_ms(Clock::time_point deadline) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
    return left <= 0 ? 0 : static_cast<int>(left);
}

}  // namespace

agent_protocol::ExitStatus run_command(const agent_protocol::Run &request, FrameOutput &out) {
    if (request.argv.empty() || request.argv[0].empty()) return {127, 0, "the run request has no command"};
    int out_pipe[2], err_pipe[2], report_pipe[2];
    if (::pipe2(out_pipe, O_CLOEXEC) != 0) return {126, 0, std::string("pipe: ") + std::strerror(errno)};
    if (::pipe2(err_pipe, O_CLOEXEC) != 0) {
        ::close(out_pipe[0]);
        ::close(out_pipe[1]);
        return {126, 0, std::string("pipe: ") + std::strerror(errno)};
    }
    if (::pipe2(report_pipe, O_CLOEXEC) != 0) {
        for (int fd : {out_pipe[0], out_pipe[1], err_pipe[0], err_pipe[1]}) ::close(fd);
        return {126, 0, std::string("pipe: ") + std::strerror(errno)};
    }
    const pid_t pid = ::fork();
    if (pid == 0) exec_child(request, out_pipe[1], err_pipe[1], report_pipe[1]);
    for (int fd : {out_pipe[1], err_pipe[1], report_pipe[1]}) ::close(fd);
    if (pid < 0) {
        for (int fd : {out_pipe[0], err_pipe[0], report_pipe[0]}) ::close(fd);
        return {126, 0, std::string("fork: ") + std::strerror(errno)};
    }
    // Set from both sides: the kill below must reach the group even if the child has not run yet.
    ::setpgid(pid, pid);

    const bool limited = request.timeout_ms > 0;
    auto deadline = Clock::now() + std::chrono::milliseconds(request.timeout_ms);
    bool timed_out = false;
    pollfd fds[2] = {{out_pipe[0], POLLIN, 0}, {err_pipe[0], POLLIN, 0}};
    int open_count = 2;
    char buffer[64 * 1024];
    while (open_count > 0) {
        const int wait = limited || timed_out ? remaining_ms(deadline) : -1;
        const int ready = ::poll(fds, 2, wait);
        if (ready < 0 && errno == EINTR) continue;
        if (ready == 0) {
            if (timed_out) break;  // escaped processes keep the pipes open: stop listening
            timed_out = true;
            ::kill(-pid, SIGKILL);
            deadline = Clock::now() + kDrainAfterKill;
            continue;
        }
        for (int i = 0; i < 2; ++i) {
            if (fds[i].fd < 0 || fds[i].revents == 0) continue;
            const auto got = ::read(fds[i].fd, buffer, sizeof buffer);
            if (got > 0) {
                // Output is streamed as it comes, not held back with answers.
                out.send(agent_protocol::encode(agent_protocol::Output{
                    static_cast<std::uint8_t>(i + 1), std::string(buffer, static_cast<std::size_t>(got))}));
                out.flush();
            } else if (got == 0 || (errno != EINTR && errno != EAGAIN)) {
                ::close(fds[i].fd);
                fds[i].fd = -1;
                --open_count;
            }
        }
    }
    for (auto &p : fds)
        if (p.fd >= 0) ::close(p.fd);
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    std::string why;
    const auto got = ::read(report_pipe[0], buffer, sizeof buffer);
    if (got > 0) why.assign(buffer, static_cast<std::size_t>(got));
    ::close(report_pipe[0]);
    agent_protocol::ExitStatus result{0, static_cast<std::uint8_t>(timed_out ? 1 : 0), why};
    if (WIFEXITED(status))
        result.code = WEXITSTATUS(status);
    else if (WIFSIGNALED(status))
        result.code = 128 + WTERMSIG(status);
    return result;
}

}  // namespace liveupdate::agent
