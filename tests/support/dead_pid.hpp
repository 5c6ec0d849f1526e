// The id of a process that ran and is gone: for tests of what a dead
// writer left behind (its pid is not running, and not reused at once).
#pragma once

#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

namespace liveupdate::test {

inline pid_t dead_pid() {
    const pid_t child = ::fork();
    if (child == 0) ::_exit(0);
    int status = 0;
    ::waitpid(child, &status, 0);
    return child;
}

}  // namespace liveupdate::test
