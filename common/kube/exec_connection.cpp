#include "common/kube/exec_connection.hpp"

#include <boost/asio/connect.hpp>
#include <boost/asio/ip/address.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/ssl.hpp>
#include <boost/beast/websocket.hpp>
#include <boost/beast/websocket/ssl.hpp>
#include <optional>

namespace liveupdate::kube {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
namespace websocket = beast::websocket;
using tcp = asio::ip::tcp;

// In this order, the stream is destroyed before the contexts it uses.
struct ExecConnection::Parts {
    asio::io_context ioc;
    asio::ssl::context tls{asio::ssl::context::tls_client};
    std::optional<websocket::stream<beast::ssl_stream<beast::tcp_stream>>> ws;
    beast::flat_buffer buffer;
    bool v5 = false;
    std::string protocol;
};

ExecConnection::ExecConnection(std::unique_ptr<Parts> parts) : parts_(std::move(parts)) {}
ExecConnection::~ExecConnection() = default;

asio::io_context &ExecConnection::io() { return parts_->ioc; }
bool ExecConnection::v5() const { return parts_->v5; }
const std::string &ExecConnection::protocol() const { return parts_->protocol; }

void ExecConnection::async_read_frame(std::function<void(Read)> on_read) {
    parts_->ws->async_read(parts_->buffer, [this, on_read = std::move(on_read)](beast::error_code ec, std::size_t) {
        Read read;
        if (ec) {
            read.ended = true;
            if (ec != websocket::error::closed && ec != asio::error::operation_aborted) read.error = ec.message();
        } else {
            read.frame = beast::buffers_to_string(parts_->buffer.cdata());
            parts_->buffer.consume(parts_->buffer.size());
        }
        on_read(std::move(read));
    });
}

void ExecConnection::async_write_frame(const std::shared_ptr<const std::string> &frame,
                                       std::function<void(bool)> on_written) {
    parts_->ws->async_write(asio::buffer(*frame), [frame, on_written = std::move(on_written)](
                                                      beast::error_code ec, std::size_t) { on_written(!ec); });
}

void ExecConnection::close_socket() {
    beast::error_code ignored;
    beast::get_lowest_layer(*parts_->ws).socket().shutdown(tcp::socket::shutdown_both, ignored);
    beast::get_lowest_layer(*parts_->ws).close();
}

namespace {

constexpr const char *kV5 = "v5.channel.k8s.io";
constexpr const char *kV4 = "v4.channel.k8s.io";

struct Server {
    std::string host, port;
};

Server server_of(const std::string &url) {
    std::string authority = url.substr(url.find("://") + 3);
    if (const auto slash = authority.find('/'); slash != std::string::npos) authority.resize(slash);
    Server s;
    const auto colon = authority.rfind(':');
    if (colon != std::string::npos && authority.find(']', colon) == std::string::npos) {
        s.host = authority.substr(0, colon);
        s.port = authority.substr(colon + 1);
    } else {
        s.host = authority;
        s.port = url.rfind("https", 0) == 0 ? "443" : "80";
    }
    if (s.host.size() > 2 && s.host.front() == '[') s.host = s.host.substr(1, s.host.size() - 2);
    return s;
}

bool is_ip(const std::string &host) {
    boost::system::error_code ec;
    asio::ip::make_address(host, ec);
    return !ec;
}

void tls_setup(asio::ssl::context &ctx, const TlsMaterial &tls, const Credentials &creds) {
    if (tls.insecure) {
        ctx.set_verify_mode(asio::ssl::verify_none);
    } else {
        ctx.set_verify_mode(asio::ssl::verify_peer);
        if (tls.ca_pem.empty())
            ctx.set_default_verify_paths();
        else
            ctx.add_certificate_authority(asio::buffer(tls.ca_pem));
    }
    if (!creds.cert_pem.empty()) {
        ctx.use_certificate_chain(asio::buffer(creds.cert_pem));
        ctx.use_private_key(asio::buffer(creds.key_pem), asio::ssl::context::pem);
    }
}

}  // namespace

std::unique_ptr<ExecConnection> open_exec_connection(ApiClient &client, const PodExecTarget &target,
                                                     const std::vector<std::string> &command, bool with_stdin,
                                                     std::chrono::milliseconds connect_timeout) {
    const ClientConfig &config = client.config();
    const Server server = server_of(config.server);
    const std::string verify_name = config.tls.server_name.empty() ? server.host : config.tls.server_name;
    const std::string path = exec_path(target, command, with_stdin);
    const std::string where = "exec in pod " + target.namespace_name + "/" + target.pod;
    for (int attempt = 0;; ++attempt) {
        const Credentials creds = client.credentials().current();
        auto c = std::make_unique<ExecConnection::Parts>();
        try {
            tls_setup(c->tls, config.tls, creds);
        } catch (const boost::system::system_error &e) {
            throw ApiError(0, "", where + ": the TLS material of " + config.where + " is unusable: " + e.what());
        }
        auto &ws = c->ws.emplace(c->ioc, c->tls);
        websocket::response_type response;
        beast::error_code ec;
        auto &tcp_stream = beast::get_lowest_layer(ws);
        tcp_stream.expires_after(connect_timeout);
        tcp::resolver resolver(c->ioc);
        const auto endpoints = resolver.resolve(server.host, server.port, ec);
        if (!ec) tcp_stream.connect(endpoints, ec);
        if (ec) throw ApiError(0, "", where + ": cannot reach the API server " + config.server + ": " + ec.message());
        if (!config.tls.insecure) ws.next_layer().set_verify_callback(asio::ssl::host_name_verification(verify_name));
        if (!is_ip(verify_name)) SSL_set_tlsext_host_name(ws.next_layer().native_handle(), verify_name.c_str());
        ws.next_layer().handshake(asio::ssl::stream_base::client, ec);
        if (ec)
            throw ApiError(0, "", where + ": TLS with the API server " + config.server + " failed: " + ec.message());
        tcp_stream.expires_never();
        ws.set_option(websocket::stream_base::timeout{std::chrono::seconds(30), websocket::stream_base::none(), false});
        ws.set_option(websocket::stream_base::decorator([&creds](websocket::request_type &req) {
            req.set(http::field::sec_websocket_protocol, std::string(kV5) + ", " + kV4);
            req.set(http::field::user_agent, "lu-host");
            if (!creds.token.empty()) req.set(http::field::authorization, "Bearer " + creds.token);
        }));
        ws.read_message_max(std::size_t{64} * 1024 * 1024);
        // One frame per message: the API server reads each frame as a message
        // of its own, with a channel byte first (Beast would cut at 4 KiB).
        ws.auto_fragment(false);
        ws.handshake(response, server.host + ":" + server.port, path, ec);
        if (ec) {
            const auto status = static_cast<long>(response.result_int());
            if (status == 401 && config.user.exec && attempt == 0) {
                client.credentials().invalidate();
                continue;
            }
            if (status == 0) throw ApiError(0, "", where + ": the WebSocket upgrade failed: " + ec.message());
            throw PodExecError(status, status_reason(response.body()),
                               where + ": " + std::to_string(status) + " " + status_message(response.body()));
        }
        c->protocol = std::string(response[http::field::sec_websocket_protocol]);
        if (c->protocol != kV5 && c->protocol != kV4)
            throw PodExecError(0, "",
                               where +
                                   ": the API server offered no channel subprotocol we speak (v5 or v4), it chose \"" +
                                   c->protocol + "\"");
        c->v5 = c->protocol == kV5;
        // Every frame we send is binary: stdin bytes behind their channel byte.
        ws.binary(true);
        return std::make_unique<ExecConnection>(std::move(c));
    }
}

}  // namespace liveupdate::kube
