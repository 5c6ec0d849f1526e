// A long-lived exec into a pod: the command's stdin stays open for as long as
// the stream lives, its stdout is collected as it arrives (by a thread of the
// stream's own, so a writer never deadlocks against unread output), its
// stderr kept for the caller to log. What a resident agent speaks over.
#pragma once

#include <chrono>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "common/kube/pod_exec.hpp"

namespace liveupdate::kube {

class ExecConnection;

class PodExecStream {
public:
    using Clock = std::chrono::steady_clock;

    // Starts the command with stdin, stdout and stderr attached. Throws
    // PodExecError when the server refuses, ApiError(0, ...) when it cannot
    // be reached.
    PodExecStream(ApiClient &client, const PodExecTarget &target, const std::vector<std::string> &command,
                  std::chrono::milliseconds connect_timeout);
    // Closes the connection (the command sees the end of its stdin).
    ~PodExecStream();
    PodExecStream(const PodExecStream &) = delete;
    PodExecStream &operator=(const PodExecStream &) = delete;

    // Sends bytes to the command's stdin. False when the stream has ended or
    // the bytes were not taken by the deadline (then the stream is closed).
    bool write_stdin(std::string_view data, Clock::time_point deadline);

    enum class Read { data, ended, timed_out };
    // Moves the stdout bytes that arrived into `out` (appending), waiting for
    // some until the deadline; `ended` once the stream ended and all is read.
    Read read_stdout(std::string &out, Clock::time_point deadline);
    // [thread-safe] Ends the read_stdout() waiting now, and makes every later
    // one return timed_out at once: the stream's owner stops.
    void interrupt();
    // The stderr bytes that arrived since the last call.
    std::string take_stderr();
    // True while the stream is open and no stdout is waiting to be read.
    bool idle_and_open();

    struct End {
        int exit_code = -1;   // as exit_code_of_status: 127 when the command could not be found
        std::string failure;  // the Status message, or why the stream broke
    };
    // How the stream ended (meaningful once read_stdout said `ended`).
    End end();

    struct State;  // shared with the stream's io thread

private:
    std::unique_ptr<ExecConnection> connection_;
    std::shared_ptr<State> state_;
};

}  // namespace liveupdate::kube
