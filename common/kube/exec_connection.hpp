// The WebSocket of a pod's exec subresource, opened and upgraded (TLS,
// credentials, subprotocol v5.channel.k8s.io or v4): shared by the one-shot
// exec (pod_exec) and the long-lived one (pod_exec_stream). Internal to lu_kube.
#pragma once

#include <boost/asio/io_context.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/ssl.hpp>
#include <boost/beast/websocket.hpp>
#include <boost/beast/websocket/ssl.hpp>
#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "common/kube/pod_exec.hpp"

namespace liveupdate::kube {

// Channel bytes: the first byte of every frame.
inline constexpr unsigned char kExecStdin = 0, kExecStdout = 1, kExecStderr = 2, kExecStatus = 3, kExecClose = 255;

struct ExecConnection {
    using Ws = boost::beast::websocket::stream<boost::beast::ssl_stream<boost::beast::tcp_stream>>;

    boost::asio::io_context ioc;
    boost::asio::ssl::context tls{boost::asio::ssl::context::tls_client};
    std::unique_ptr<Ws> ws;
    bool v5 = false;       // stdin can be closed with [255, 0]
    std::string protocol;  // the subprotocol the server chose
};

// Connects and upgrades. Throws PodExecError when the server refuses (pod
// gone, forbidden...), ApiError(0, ...) when it cannot be reached.
std::unique_ptr<ExecConnection> open_exec_connection(ApiClient &client, const PodExecTarget &target,
                                                     const std::vector<std::string> &command, bool with_stdin,
                                                     std::chrono::milliseconds connect_timeout);

}  // namespace liveupdate::kube
