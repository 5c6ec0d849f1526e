#include "common/subprocess/child_start.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "common/subprocess/default_signals.hpp"

namespace liveupdate::subprocess {
namespace {

// The program's path as execvp would find it, resolved before fork.
std::string resolve_program(const std::string &name, int &error) {
    if (name.empty()) {
        error = ENOENT;
        return {};
    }
    if (name.find('/') != std::string::npos) return name;
    const char *path = std::getenv("PATH");
    const std::string dirs = path != nullptr && *path != '\0' ? path : "/usr/local/bin:/usr/bin:/bin";
    error = ENOENT;
    for (std::size_t from = 0; from <= dirs.size();) {
        std::size_t to = dirs.find(':', from);
        if (to == std::string::npos) to = dirs.size();
        std::string candidate = to > from ? dirs.substr(from, to - from) : ".";
        candidate.append("/").append(name);
        if (::access(candidate.c_str(), X_OK) == 0) return candidate;
        if (errno == EACCES) error = EACCES;
        from = to + 1;
    }
    return {};
}

std::vector<char *> c_strings(const std::vector<std::string> &strings) {
    std::vector<char *> out;
    out.reserve(strings.size() + 1);
    for (const auto &s : strings) out.push_back(const_cast<char *>(s.c_str()));
    out.push_back(nullptr);
    return out;
}

// What the child writes to the report pipe when it cannot exec.
struct ChildReport {
    StartStep step;
    int error;
};

// In the child: async-signal-safe calls only.
[[noreturn]] void fail_child(int report_fd, StartStep step) {
    const ChildReport report{step, errno};
    // A short write leaves the parent without a report: it then sees exit status 127.
    [[maybe_unused]] const ssize_t written = ::write(report_fd, &report, sizeof report);
    ::_exit(127);
}

// In the child: the three descriptors in place. Each source is first moved
// above 2 so that one already at 0, 1 or 2 is not overwritten before use.
void set_descriptors(const ChildOptions &options, int report_fd) {
    const std::array<int, 3> wanted{options.stdin_fd, options.stdout_fd, options.stderr_fd};
    int null_fd = -1;
    if (wanted[0] < 0 || wanted[1] < 0 || wanted[2] < 0) {
        null_fd = ::open("/dev/null", O_RDWR | O_CLOEXEC);
        if (null_fd < 0) fail_child(report_fd, StartStep::descriptors);
    }
    std::array<int, 3> moved{};
    for (std::size_t i = 0; i < wanted.size(); ++i) {
        moved[i] = ::fcntl(wanted[i] < 0 ? null_fd : wanted[i], F_DUPFD_CLOEXEC, 3);
        if (moved[i] < 0) fail_child(report_fd, StartStep::descriptors);
    }
    for (std::size_t i = 0; i < moved.size(); ++i)
        if (::dup2(moved[i], static_cast<int>(i)) < 0) fail_child(report_fd, StartStep::descriptors);
}

[[noreturn]] void run_child(const ChildOptions &options, const char *program, char *const argv[], char *const envp[],
                            int report_fd, pid_t parent) {
    if (options.die_with_parent) {
        if (::prctl(PR_SET_PDEATHSIG, SIGKILL) != 0) fail_child(report_fd, StartStep::die_with_parent);
        if (::getppid() != parent) ::_exit(127);  // the parent died before the request took effect
    }
    if (options.own_process_group) ::setpgid(0, 0);
    restore_default_signals();
    set_descriptors(options, report_fd);
    if (!options.cwd.empty() && ::chdir(options.cwd.c_str()) != 0) fail_child(report_fd, StartStep::working_directory);
    ::execve(program, argv, envp);
    fail_child(report_fd, StartStep::exec);
}

void reap(pid_t pid) {
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
}

}  // namespace

StartedChild start_child(const ChildOptions &options) {
    StartedChild child;
    if (options.argv.empty()) {
        child.failed_step = StartStep::lookup;
        child.error = EINVAL;
        return child;
    }
    const std::string program = resolve_program(options.argv[0], child.error);
    if (program.empty()) {
        child.failed_step = StartStep::lookup;
        return child;
    }
    child.error = 0;
    const std::vector<char *> argv = c_strings(options.argv);
    const std::vector<char *> envp = c_strings(options.env);

    int report[2];
    if (::pipe2(report, O_CLOEXEC) != 0) {
        child.failed_step = StartStep::report_pipe;
        child.error = errno;
        return child;
    }
    const pid_t parent = ::getpid();
    const pid_t pid = ::fork();
    if (pid == 0) run_child(options, program.c_str(), argv.data(), envp.data(), report[1], parent);
    ::close(report[1]);
    if (pid < 0) {
        child.failed_step = StartStep::fork;
        child.error = errno;
        ::close(report[0]);
        return child;
    }
    ChildReport failure{};
    ssize_t n;
    while ((n = ::read(report[0], &failure, sizeof failure)) < 0 && errno == EINTR) {
    }
    ::close(report[0]);
    if (n == static_cast<ssize_t>(sizeof failure)) {
        reap(pid);
        child.failed_step = failure.step;
        child.error = failure.error;
        return child;
    }
    child.pid = pid;
    return child;
}

std::string start_failure_text(const StartedChild &child) {
    std::string why = std::strerror(child.error);
    switch (child.failed_step) {
    case StartStep::report_pipe: return "pipe: " + why;
    case StartStep::fork: return "fork: " + why;
    case StartStep::die_with_parent: return "PR_SET_PDEATHSIG: " + why;
    case StartStep::descriptors: return "standard input/output: " + why;
    case StartStep::working_directory: return "working directory: " + why;
    case StartStep::none:
    case StartStep::lookup:
    case StartStep::exec: break;
    }
    return why;
}

int exit_code_of(int wait_status) {
    if (WIFEXITED(wait_status)) return WEXITSTATUS(wait_status);
    if (WIFSIGNALED(wait_status)) return 128 + WTERMSIG(wait_status);
    return -1;
}

}  // namespace liveupdate::subprocess
