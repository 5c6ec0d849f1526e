#include "host/webhook/webhook_server.hpp"

#include <array>
#include <atomic>
#include <optional>
#include <stdexcept>
#include <thread>
#include <vector>

#include <boost/asio.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/ssl.hpp>

#include "host/core/waiting_connections.hpp"

namespace liveupdate::host::webhook {
namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
namespace ssl = asio::ssl;
using tcp = asio::ip::tcp;

namespace {

constexpr std::size_t kHeaderLimit = std::size_t{16} * 1024;
// Connections in their TLS handshake, sending their request or idle between
// requests: past this many the oldest goes as a new one arrives, so idle
// sockets can never keep the API server's requests out (with failurePolicy
// Fail that would block every write of a tilt.dev object).
constexpr std::size_t kMaxWaiting = 256;
// Only against running out of descriptors: the others are being answered.
constexpr std::size_t kMaxConnections = 1024;

}  // namespace

// Handlers capture the server by pointer: it outlives them, as they are
// destroyed with io_, its member (a stopped io_context never runs them).
class ServerImpl {
public:
    ServerImpl(const ServerOptions &options, std::shared_ptr<TlsFiles> tls, Handler handler)
        : options_(options), tls_(std::move(tls)), handler_(std::move(handler)), acceptor_(asio::make_strand(io_)) {
        boost::system::error_code ec;
        const auto address = asio::ip::make_address(options.address, ec);
        if (ec) throw std::runtime_error("--listen " + options.address + ": not an IP address");
        const tcp::endpoint endpoint(address, options.port);
        acceptor_.open(endpoint.protocol(), ec);
        if (!ec) acceptor_.set_option(asio::socket_base::reuse_address(true), ec);
        if (!ec) acceptor_.bind(endpoint, ec);
        if (!ec) acceptor_.listen(asio::socket_base::max_listen_connections, ec);
        if (ec)
            throw std::runtime_error("cannot listen on " + options.address + ":" + std::to_string(options.port) + ": " +
                                     ec.message());
        port_ = acceptor_.local_endpoint().port();
    }

    ~ServerImpl() { stop(); }

    void start() {
        accept();
        for (unsigned i = 0; i < std::max(1u, options_.threads); ++i) threads_.emplace_back([this] { io_.run(); });
    }

    void stop() {
        io_.stop();
        for (auto &t : threads_) t.join();
        threads_.clear();
    }

    unsigned short port() const { return port_; }
    const ServerOptions &options() const { return options_; }
    const Handler &handler() const { return handler_; }
    std::atomic<std::size_t> &connections() { return connections_; }
    WaitingConnections &waiting() { return waiting_; }

private:
    void accept();

    ServerOptions options_;
    std::shared_ptr<TlsFiles> tls_;
    Handler handler_;
    std::atomic<std::size_t> connections_{0};  // before io_: sessions count down as io_ destroys them
    WaitingConnections waiting_{kMaxWaiting};  // before io_ too: sessions leave it as io_ destroys them
    asio::io_context io_;
    tcp::acceptor acceptor_;
    unsigned short port_ = 0;
    std::vector<std::thread> threads_;
};

namespace {

class HttpsSession : public std::enable_shared_from_this<HttpsSession> {
public:
    HttpsSession(tcp::socket socket, std::shared_ptr<ssl::context> context, ServerImpl *server)
        : context_(std::move(context)), stream_(std::move(socket), *context_), server_(server) {
        ++server_->connections();
    }
    ~HttpsSession() {
        if (waiting_id_) server_->waiting().remove(*waiting_id_);
        --server_->connections();
    }

    void run() {
        asio::dispatch(stream_.get_executor(), [self = shared_from_this()] {
            self->wait_for_request();
            beast::get_lowest_layer(self->stream_).expires_after(self->server_->options().request_deadline);
            self->stream_.async_handshake(ssl::stream_base::server, [self](beast::error_code ec) {
                if (!ec) self->read();
            });
        });
    }

private:
    // On this connection's strand, as every drop runs there.
    void wait_for_request() {
        if (waiting_id_) return;
        std::weak_ptr<HttpsSession> weak = weak_from_this();
        auto executor = stream_.get_executor();
        waiting_id_ = server_->waiting().add([weak, executor](std::uint64_t id) {
            asio::post(executor, [weak, id] {
                if (auto self = weak.lock(); self && self->waiting_id_ == id)
                    beast::get_lowest_layer(self->stream_).close();
            });
        });
    }

    void stop_waiting() {
        if (waiting_id_) server_->waiting().remove(*waiting_id_);
        waiting_id_.reset();
    }

    void read() {
        wait_for_request();
        parser_.emplace();
        parser_->header_limit(kHeaderLimit);
        parser_->body_limit(server_->options().body_limit);
        beast::get_lowest_layer(stream_).expires_after(server_->options().request_deadline);
        http::async_read(stream_, buffer_, *parser_,
                         [self = shared_from_this()](beast::error_code ec, std::size_t) { self->on_read(ec); });
    }

    void on_read(beast::error_code ec) {
        stop_waiting();
        if (ec == http::error::body_limit || ec == http::error::header_limit)
            return reply(HttpAnswer{413, "text/plain; charset=utf-8",
                                    "request too large: bodies up to " + std::to_string(server_->options().body_limit) +
                                        " bytes\n"},
                         false, true);
        if (ec == http::error::bad_method || ec == http::error::bad_target || ec == http::error::bad_version ||
            ec == http::error::bad_field || ec == http::error::bad_value || ec == http::error::bad_content_length ||
            ec == http::error::bad_chunk || ec == http::error::bad_transfer_encoding ||
            ec == http::error::bad_line_ending || ec == http::error::bad_obs_fold)
            return reply(HttpAnswer{400, "text/plain; charset=utf-8", "malformed HTTP request: " + ec.message() + "\n"},
                         false, true);
        if (ec) return close();
        const http::request<http::string_body> req = parser_->release();
        HttpAnswer answer =
            server_->handler()(HttpRequest{std::string(req.method_string()), std::string(req.target()), req.body()});
        reply(std::move(answer), req.keep_alive());
    }

    // linger: the client may still be sending what was refused; closing with
    // unread data would reset the connection and lose the answer on its way.
    void reply(HttpAnswer answer, bool keep_alive, bool linger = false) {
        auto res = std::make_shared<http::response<http::string_body>>(static_cast<http::status>(answer.status), 11);
        res->set(http::field::server, "lu-host webhook");
        if (!answer.content_type.empty()) res->set(http::field::content_type, answer.content_type);
        res->keep_alive(keep_alive);
        res->body() = std::move(answer.body);
        res->prepare_payload();
        beast::get_lowest_layer(stream_).expires_after(server_->options().write_deadline);
        http::async_write(stream_, *res, [self = shared_from_this(), res, linger](beast::error_code ec, std::size_t) {
            if (ec) return;
            if (linger) return self->drain();
            if (!res->keep_alive()) return self->close();
            self->read();
        });
    }

    // Ends our side and discards what the client still sends, until it stops or the deadline.
    void drain() {
        auto &tcp_stream = beast::get_lowest_layer(stream_);
        beast::error_code ignored;
        tcp_stream.socket().shutdown(tcp::socket::shutdown_send, ignored);
        tcp_stream.expires_after(server_->options().request_deadline);
        discard_next();
    }

    void discard_next() {
        beast::get_lowest_layer(stream_).async_read_some(
            asio::buffer(discard_), [self = shared_from_this()](beast::error_code ec, std::size_t) {
                if (ec) return beast::get_lowest_layer(self->stream_).close();
                self->discard_next();
            });
    }

    void close() {
        beast::get_lowest_layer(stream_).expires_after(server_->options().write_deadline);
        stream_.async_shutdown(
            [self = shared_from_this()](beast::error_code) { beast::get_lowest_layer(self->stream_).close(); });
    }

    std::shared_ptr<ssl::context> context_;  // before stream_: it must outlive the stream
    beast::ssl_stream<beast::tcp_stream> stream_;
    beast::flat_buffer buffer_{kHeaderLimit};
    std::optional<http::request_parser<http::string_body>> parser_;
    std::array<char, std::size_t{16} * 1024> discard_{};
    std::optional<std::uint64_t> waiting_id_;  // from accepting until a request is whole
    ServerImpl *server_;
};

}  // namespace

void ServerImpl::accept() {
    acceptor_.async_accept(asio::make_strand(io_), [self = this](beast::error_code ec, tcp::socket socket) {
        if (ec == asio::error::operation_aborted) return;
        if (!ec) {
            if (self->connections().load() >= kMaxConnections) {
                beast::error_code ignored;
                socket.close(ignored);
            } else {
                std::make_shared<HttpsSession>(std::move(socket), self->tls_->current(), self)->run();
            }
        }
        self->accept();
    });
}

WebhookServer::WebhookServer(const ServerOptions &options, std::shared_ptr<TlsFiles> tls, Handler handler)
    : impl_(std::make_unique<ServerImpl>(options, std::move(tls), std::move(handler))) {
    impl_->start();
}

WebhookServer::~WebhookServer() { impl_->stop(); }

unsigned short WebhookServer::port() const { return impl_->port(); }

}  // namespace liveupdate::host::webhook
