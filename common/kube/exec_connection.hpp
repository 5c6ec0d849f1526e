// The WebSocket of a pod's exec subresource, opened and upgraded (TLS,
// credentials, subprotocol v5.channel.k8s.io or v4): shared by the one-shot
// exec (pod_exec) and the long-lived one (pod_exec_stream). Internal to lu_kube.
// Beast stays in exec_connection.cpp: its WebSocket over TLS costs every
// file that names it half a minute of compile time.
#pragma once

#include <boost/asio/io_context.hpp>
#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "common/kube/pod_exec.hpp"

namespace liveupdate::kube {

// One upgraded connection and the io_context its operations run on. The
// frame operations are called on the thread that runs io().
class ExecConnection {
public:
    struct Parts;  // the Beast stream; only open_exec_connection makes one
    explicit ExecConnection(std::unique_ptr<Parts> parts);
    ~ExecConnection();
    ExecConnection(const ExecConnection &) = delete;
    ExecConnection &operator=(const ExecConnection &) = delete;

    boost::asio::io_context &io();
    bool v5() const;                      // stdin can be closed with [255, 0]
    const std::string &protocol() const;  // the subprotocol the server chose

    // A frame that arrived, or the end of reading: `error` is empty when the
    // connection was closed (by either side), else why reading failed.
    struct Read {
        bool ended = false;
        std::string frame;
        std::string error;
    };
    // Reads the next frame (one message); on_read runs on the io thread.
    void async_read_frame(std::function<void(Read)> on_read);
    // Writes one binary frame; on_written(true) once it is all sent.
    void async_write_frame(const std::shared_ptr<const std::string> &frame, std::function<void(bool)> on_written);
    // Shuts the socket down: pending operations end with an error.
    void close_socket();

private:
    std::unique_ptr<Parts> parts_;
};

// Connects and upgrades. Throws PodExecError when the server refuses (pod
// gone, forbidden...), ApiError(0, ...) when it cannot be reached.
std::unique_ptr<ExecConnection> open_exec_connection(ApiClient &client, const PodExecTarget &target,
                                                     const std::vector<std::string> &command, bool with_stdin,
                                                     std::chrono::milliseconds connect_timeout);

}  // namespace liveupdate::kube
