// `kubectl exec` without kubectl: the pod's exec subresource upgraded to a
// WebSocket (Boost.Beast over OpenSSL) with the channel subprotocol
// v5.channel.k8s.io (stdin closed with [255, 0]), falling back to
// v4.channel.k8s.io when the server does not offer v5. Frames carry their
// channel in the first byte: 0 stdin, 1 stdout, 2 stderr, 3 the final Status.
#pragma once

#include <chrono>
#include <cstddef>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "common/kube/api_client.hpp"
#include "common/kube/exec_frames.hpp"

namespace liveupdate::kube {

struct PodExecTarget {
    std::string namespace_name;
    std::string pod;
    std::string container;  // empty: the pod's only container
};

// Takes all bytes or throws. A write of no bytes sends nothing and throws
// once the session has ended (a feeder waiting on something else asks so).
using ExecWriteFn = std::function<void(const char *data, std::size_t size)>;
// Feeds the command's stdin through the writer and returns at its end.
using ExecStdinFn = std::function<void(const ExecWriteFn &write)>;
using ExecOutputFn = std::function<void(bool is_stderr, std::string_view data)>;

struct PodExecResult {
    int exit_code = 0;     // the command's; 127 when it could not be started
    std::string failure;   // the Status message when the command did not run or ended badly
    std::string protocol;  // the subprotocol the server chose
    bool timed_out = false;
};

// The API server refused the exec (pod gone, container unknown, forbidden):
// status is the HTTP status, reason the Status reason.
class PodExecError : public ApiError {
public:
    using ApiError::ApiError;
};

// The exec request's path and query for a command.
std::string exec_path(const PodExecTarget &target, const std::vector<std::string> &command, bool with_stdin);

// Runs the command in the container. Throws PodExecError when the server
// refuses, ApiError(0, ...) when it cannot be reached; exceptions from
// `stdin_feeder` pass through once the session is closed.
PodExecResult exec_in_pod(ApiClient &client, const PodExecTarget &target, const std::vector<std::string> &command,
                          const ExecStdinFn *stdin_feeder, const ExecOutputFn &on_output,
                          std::chrono::milliseconds timeout);

}  // namespace liveupdate::kube
