// Runs one command as a child process in a given folder, streaming its
// combined stdout/stderr line by line.
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "common/subprocess/environment.hpp"

namespace liveupdate::local {

struct CommandResult {
    bool started = false;
    int exit_code = -1;       // 128 + signal when killed by a signal
    std::string start_error;  // why it could not start
};

// The working directory is set in the child, never by chdir() in this
// multithreaded process. The child gets this process's environment with
// extra_env's variables added or replaced.
CommandResult run_command(const std::vector<std::string> &argv, const std::string &working_dir,
                          const subprocess::EnvVars &extra_env,
                          const std::function<void(std::string_view line)> &on_line);

}  // namespace liveupdate::local
