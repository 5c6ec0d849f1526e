#include "host/up/child_spawner.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <future>

namespace liveupdate::up {

namespace {

// The program's path as execvp would find it, resolved before fork: the child
// may only make async-signal-safe calls.
std::string resolve_program(const std::string &name, int &error) {
    if (name.find('/') != std::string::npos) return name;
    const char *path = std::getenv("PATH");
    std::string dirs = path != nullptr && *path != '\0' ? path : "/usr/local/bin:/usr/bin:/bin";
    error = ENOENT;
    for (std::size_t from = 0; from <= dirs.size();) {
        std::size_t to = dirs.find(':', from);
        if (to == std::string::npos) to = dirs.size();
        const std::string dir = to > from ? dirs.substr(from, to - from) : ".";
        const std::string candidate = dir + "/" + name;
        if (::access(candidate.c_str(), X_OK) == 0) return candidate;
        if (errno == EACCES) error = EACCES;
        from = to + 1;
    }
    return {};
}

[[noreturn]] void fail_child(int error_fd) {
    const int error = errno;
    if (::write(error_fd, &error, sizeof error) < 0) {
        // The parent then sees no error and reaps exit status 127.
    }
    ::_exit(127);
}

SpawnResult spawn_now(const SpawnRequest &request) {
    SpawnResult result;
    if (request.argv.empty()) {
        result.error = EINVAL;
        return result;
    }
    const std::string program = resolve_program(request.argv[0], result.error);
    if (program.empty()) return result;
    result.error = 0;
    std::vector<char *> argv;
    for (const auto &a : request.argv) argv.push_back(const_cast<char *>(a.c_str()));
    argv.push_back(nullptr);
    std::vector<char *> envp;
    for (const auto &e : request.env) envp.push_back(const_cast<char *>(e.c_str()));
    envp.push_back(nullptr);

    int error_pipe[2];
    if (::pipe2(error_pipe, O_CLOEXEC) != 0) {
        result.error = errno;
        return result;
    }
    const pid_t parent = ::getpid();
    const pid_t pid = ::fork();
    if (pid < 0) {
        result.error = errno;
        ::close(error_pipe[0]);
        ::close(error_pipe[1]);
        return result;
    }
    if (pid == 0) {
        // Async-signal-safe calls only from here on.
        ::close(error_pipe[0]);
        if (::prctl(PR_SET_PDEATHSIG, SIGKILL) != 0) fail_child(error_pipe[1]);
        if (::getppid() != parent) ::_exit(127);  // the daemon died before the request took effect
        ::setpgid(0, 0);
        sigset_t none;
        sigemptyset(&none);
        ::sigprocmask(SIG_SETMASK, &none, nullptr);
        for (const int sig : {SIGINT, SIGTERM, SIGPIPE, SIGHUP, SIGQUIT}) ::signal(sig, SIG_DFL);
        const int null_fd = ::open("/dev/null", O_RDONLY | O_CLOEXEC);  // dup2 leaves fd 0 open
        if (null_fd < 0 || ::dup2(null_fd, 0) < 0) fail_child(error_pipe[1]);
        if (::dup2(request.output_fd, 1) < 0 || ::dup2(request.output_fd, 2) < 0) fail_child(error_pipe[1]);
        if (::chdir(request.cwd.c_str()) != 0) fail_child(error_pipe[1]);
        ::execve(program.c_str(), argv.data(), envp.data());
        fail_child(error_pipe[1]);
    }
    ::close(error_pipe[1]);
    int child_error = 0;
    ssize_t n;
    while ((n = ::read(error_pipe[0], &child_error, sizeof child_error)) < 0 && errno == EINTR) {
    }
    ::close(error_pipe[0]);
    if (n > 0) {
        int status = 0;
        ::waitpid(pid, &status, 0);
        result.error = child_error;
        return result;
    }
    result.pid = pid;
    return result;
}

}  // namespace

ChildSpawner::ChildSpawner() : thread_([this] { run(); }) {}

ChildSpawner::~ChildSpawner() {
    {
        std::lock_guard lock(mutex_);
        stopping_ = true;
    }
    wake_.notify_all();
    thread_.join();
}

SpawnResult ChildSpawner::spawn(const SpawnRequest &request) {
    std::packaged_task<SpawnResult()> task([&request] { return spawn_now(request); });
    std::future<SpawnResult> result = task.get_future();
    {
        std::lock_guard lock(mutex_);
        jobs_.emplace_back([&task] { task(); });
    }
    wake_.notify_all();
    return result.get();
}

void ChildSpawner::run() {
    for (;;) {
        std::function<void()> job;
        {
            std::unique_lock lock(mutex_);
            wake_.wait(lock, [this] { return stopping_ || !jobs_.empty(); });
            if (jobs_.empty()) return;
            job = std::move(jobs_.front());
            jobs_.pop_front();
        }
        job();
    }
}

}  // namespace liveupdate::up
