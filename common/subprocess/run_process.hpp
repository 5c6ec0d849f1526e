// Runs a program to its end (no shell): stdin fed by a producer, stdout and
// stderr handed over as they come (apart, or merged into one stream in their
// order), an optional deadline after which the child is killed.
#pragma once

#include <chrono>
#include <cstddef>
#include <functional>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "common/subprocess/environment.hpp"

namespace liveupdate::subprocess {

// Takes all bytes or throws. A write of no bytes sends nothing: it reads
// the output there is (on_output) and throws once the program has ended.
using WriteFn = std::function<void(const char *data, std::size_t size)>;
// Feeds stdin through the given writer and returns at its end.
using StdinFeeder = std::function<void(const WriteFn &write)>;
// is_stderr is always false when the output is merged.
using ProcessOutputFn = std::function<void(bool is_stderr, std::string_view data)>;

struct RunOptions {
    std::vector<std::string> argv{};                     // argv[0] is looked up on PATH unless it has a '/'
    std::string cwd{};                                   // empty: this process's working directory
    EnvVars extra_env{};                                 // added to, or replacing, this process's environment
    StdinFeeder feed_stdin{};                            // empty: stdin is /dev/null
    ProcessOutputFn on_output{};                         // empty: the output is read and dropped
    bool merge_output = false;                           // stderr into stdout's pipe: one stream in the child's order
    std::optional<std::chrono::milliseconds> timeout{};  // then SIGKILL and timed_out
};

struct ProcessResult {
    int exit_code = 0;       // 128 + signal when killed by one; -1 when timed out
    bool timed_out = false;  // killed after the deadline
};

// The program could not be started: "cannot run 'PROGRAM' [in DIR]: WHY".
class StartError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// Throws StartError when the program cannot be started. Exceptions from the
// feeder or on_output pass through, after the child is killed and reaped.
// The child stops reading stdin early: the feeder's further writes are
// dropped and the exit code tells why.
ProcessResult run_process(const RunOptions &options);

}  // namespace liveupdate::subprocess
