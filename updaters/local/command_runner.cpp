#include "updaters/local/command_runner.hpp"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <map>

extern char **environ;

namespace liveupdate::local {
namespace {

struct SpawnActions {
    posix_spawn_file_actions_t actions;
    SpawnActions() { posix_spawn_file_actions_init(&actions); }
    ~SpawnActions() { posix_spawn_file_actions_destroy(&actions); }
};

void pump_lines(int fd, const std::function<void(std::string_view)> &on_line) {
    std::string pending;
    char buffer[4096];
    for (;;) {
        const ssize_t n = ::read(fd, buffer, sizeof buffer);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) break;
        pending.append(buffer, static_cast<std::size_t>(n));
        std::size_t start = 0;
        for (std::size_t nl; (nl = pending.find('\n', start)) != std::string::npos; start = nl + 1)
            on_line(std::string_view(pending).substr(start, nl - start));
        pending.erase(0, start);
    }
    if (!pending.empty()) on_line(pending);
}

// This process's environment with extra's variables set (added or replaced), as "NAME=value".
std::vector<std::string> environment_with(const std::vector<std::pair<std::string, std::string>> &extra) {
    std::map<std::string, std::string, std::less<>> by_name;
    for (char **entry = environ; *entry != nullptr; ++entry) {
        const std::string_view text(*entry);
        by_name.emplace(text.substr(0, text.find('=')), text);
    }
    for (const auto &[name, value] : extra) by_name.insert_or_assign(name, name + "=" + value);
    std::vector<std::string> out;
    for (auto &[name, entry] : by_name) out.push_back(std::move(entry));
    return out;
}

}  // namespace

CommandResult run_command(const std::vector<std::string> &argv, const std::string &working_dir,
                          const std::vector<std::pair<std::string, std::string>> &extra_env,
                          const std::function<void(std::string_view line)> &on_line) {
    CommandResult result;
    if (argv.empty()) {
        result.start_error = "empty command";
        return result;
    }
    int pipe_fds[2];
    if (::pipe2(pipe_fds, O_CLOEXEC) != 0) {
        result.start_error = std::string("cannot create a pipe: ") + std::strerror(errno);
        return result;
    }
    SpawnActions sa;
    posix_spawn_file_actions_addopen(&sa.actions, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_adddup2(&sa.actions, pipe_fds[1], 1);
    posix_spawn_file_actions_adddup2(&sa.actions, pipe_fds[1], 2);
    posix_spawn_file_actions_addchdir_np(&sa.actions, working_dir.c_str());

    std::vector<char *> args;
    for (const auto &a : argv) args.push_back(const_cast<char *>(a.c_str()));
    args.push_back(nullptr);

    std::vector<std::string> env = environment_with(extra_env);
    std::vector<char *> envp;
    for (auto &entry : env) envp.push_back(entry.data());
    envp.push_back(nullptr);

    pid_t pid = -1;
    const int rc = ::posix_spawnp(&pid, args[0], &sa.actions, nullptr, args.data(), envp.data());
    ::close(pipe_fds[1]);
    if (rc != 0) {
        ::close(pipe_fds[0]);
        result.start_error = "cannot start \"" + argv[0] + "\" in " + working_dir + ": " + std::strerror(rc);
        return result;
    }
    result.started = true;
    pump_lines(pipe_fds[0], on_line);
    ::close(pipe_fds[0]);
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    return result;
}

}  // namespace liveupdate::local
