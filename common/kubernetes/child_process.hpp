// Runs a program (kubectl, an exec credential plugin) with stdin fed from a
// producer while its stdout and stderr are read, under a deadline. No shell.
#pragma once

#include <chrono>
#include <cstddef>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace liveupdate::kubernetes {

// Takes all bytes or throws.
using WriteFn = std::function<void(const char *data, std::size_t size)>;
// Feeds stdin through the given writer and returns at its end.
using StdinFeeder = std::function<void(const WriteFn &write)>;
using ProcessOutputFn = std::function<void(bool is_stderr, std::string_view data)>;

struct ProcessResult {
    int exit_code = 0;     // 128 + signal when killed by one
    bool timed_out = false; // killed after the deadline
};

// argv[0] is looked up on PATH. Throws std::runtime_error when the program
// cannot be started; exceptions from the feeder pass through (the child is
// killed and reaped first).
// extra_env ("NAME=value" each) is added to (and overrides) the host's environment.
ProcessResult run_process(const std::vector<std::string> &argv, const StdinFeeder *stdin_feeder,
                          const ProcessOutputFn &on_output, std::chrono::milliseconds timeout,
                          const std::vector<std::string> &extra_env = {});

}  // namespace liveupdate::kubernetes
