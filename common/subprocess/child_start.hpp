// Starts one child process (fork and exec). Everything the child needs (the
// program's path, argv, envp) is prepared before fork, the child makes only
// async-signal-safe calls, and a failure in the child before exec comes back
// through a close-on-exec pipe with its errno. Not posix_spawn: that cannot
// ask for PR_SET_PDEATHSIG.
#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

namespace liveupdate::subprocess {

struct ChildOptions {
    std::vector<std::string> argv{};  // argv[0] is looked up on this process's PATH unless it has a '/'
    std::vector<std::string> env{};   // the child's whole environment, "NAME=value" each
    std::string cwd{};                // empty: this process's working directory
    int stdin_fd = -1;                // -1: /dev/null (each of the three)
    int stdout_fd = -1;
    int stderr_fd = -1;
    bool own_process_group = false;  // the child leads a new process group (kill(-pid) reaches its children)
    // SIGKILL to the child when the *thread* that started it ends
    // (PR_SET_PDEATHSIG): start such children from a thread that lives as
    // long as they may.
    bool die_with_parent = false;
};

// What was being done when starting failed.
enum class StartStep { none, lookup, report_pipe, fork, die_with_parent, descriptors, working_directory, exec };

struct StartedChild {
    pid_t pid = -1;  // -1: not started
    int error = 0;   // errno of failed_step
    StartStep failed_step = StartStep::none;
};

// Returns once the child has exec'd or failed to; a child that failed is
// already reaped. Signal dispositions and the signal mask are reset to their
// defaults in the child.
StartedChild start_child(const ChildOptions &options);

// Why a child did not start, e.g. "No such file or directory" (lookup, exec)
// or "working directory: Permission denied".
std::string start_failure_text(const StartedChild &child);

// A waitpid status as a shell shows it: the exit code, or 128 + the signal.
int exit_code_of(int wait_status);

}  // namespace liveupdate::subprocess
