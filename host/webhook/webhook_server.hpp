// The webhook's HTTPS server (Boost.Beast over OpenSSL): bounded headers and
// bodies, a deadline on every handshake, request and answer, a cap on open
// connections; each connection runs on its own strand, so a slow client costs
// only its own connection. The certificate is taken from TlsFiles for each
// new connection (rotation without restart).
#pragma once

#include <chrono>
#include <cstddef>
#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include "host/webhook/admission_review.hpp"
#include "host/webhook/tls_files.hpp"

namespace liveupdate::host::webhook {

struct ServerOptions {
    std::string address = "0.0.0.0";
    unsigned short port = 9443;
    std::size_t body_limit = std::size_t{4} << 20;      // an UPDATE carries the object twice, each up to etcd's 1.5 MiB
    std::chrono::milliseconds request_deadline{10000};  // TLS handshake, then each request (idle time included)
    std::chrono::milliseconds write_deadline{10000};
    unsigned threads = 2;
};

struct HttpRequest {
    std::string method;
    std::string target;
    std::string_view body;
};

using Handler = std::function<HttpAnswer(const HttpRequest &request)>;

class ServerImpl;

class WebhookServer {
public:
    // Binds and starts serving; throws std::runtime_error saying why it cannot.
    WebhookServer(const ServerOptions &options, std::shared_ptr<TlsFiles> tls, Handler handler);
    WebhookServer(const WebhookServer &) = delete;
    WebhookServer &operator=(const WebhookServer &) = delete;
    ~WebhookServer();  // closes every connection, joins the threads

    unsigned short port() const;

private:
    std::unique_ptr<ServerImpl> impl_;
};

}  // namespace liveupdate::host::webhook
