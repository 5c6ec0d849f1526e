// Starts the LocalContainer processes so that they die with the daemon, even
// when it is killed with SIGKILL: each child asks the kernel for SIGKILL when
// its parent goes (PR_SET_PDEATHSIG). The kernel means the parent *thread*, so
// every child is forked by the one thread this object owns, which lives as
// long as the daemon's supervisor.
#pragma once

#include <sys/types.h>

#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace liveupdate::up {

struct SpawnRequest {
    std::vector<std::string> argv;  // argv[0] is looked up in $PATH unless it has a '/'
    std::vector<std::string> env;   // "NAME=value"
    std::string cwd;
    int output_fd = -1;  // the child's stdout and stderr; stdin is /dev/null
};

struct SpawnResult {
    pid_t pid = -1;
    int error = 0;  // errno of what failed (lookup, chdir, exec) when pid is -1
};

class ChildSpawner {
public:
    ChildSpawner();
    ChildSpawner(const ChildSpawner &) = delete;
    ChildSpawner &operator=(const ChildSpawner &) = delete;
    ~ChildSpawner();

    // Runs on the spawner's thread; returns once the child has exec'd (or failed to).
    // The child runs in its own process group with default signal handling.
    SpawnResult spawn(const SpawnRequest &request);

private:
    void run();

    std::mutex mutex_;
    std::condition_variable wake_;
    std::deque<std::function<void()>> jobs_;
    bool stopping_ = false;
    std::thread thread_;
};

}  // namespace liveupdate::up
