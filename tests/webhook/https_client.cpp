#include "tests/webhook/https_client.hpp"

#include <openssl/pem.h>

#include <boost/asio.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/ssl.hpp>

namespace liveupdate::tests {
namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
namespace ssl = asio::ssl;
using tcp = asio::ip::tcp;

namespace {

struct Connection {
    asio::io_context io;
    ssl::context ctx{ssl::context::tls_client};
    std::unique_ptr<beast::ssl_stream<beast::tcp_stream>> stream;

    Connection(const std::string &ca_pem, unsigned short port) {
        ctx.add_certificate_authority(asio::buffer(ca_pem));
        ctx.set_verify_mode(ssl::verify_peer);
        stream = std::make_unique<beast::ssl_stream<beast::tcp_stream>>(io, ctx);
        beast::get_lowest_layer(*stream).connect(tcp::endpoint(asio::ip::make_address("127.0.0.1"), port));
        SSL_set1_host(stream->native_handle(), "127.0.0.1");
        X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(stream->native_handle()), "127.0.0.1");
        stream->handshake(ssl::stream_base::client);
    }

    std::string peer_pem() {
        X509 *cert = SSL_get1_peer_certificate(stream->native_handle());
        if (cert == nullptr) return {};
        BIO *bio = BIO_new(BIO_s_mem());
        PEM_write_bio_X509(bio, cert);
        char *data = nullptr;
        const long size = BIO_get_mem_data(bio, &data);
        std::string pem(data, static_cast<std::size_t>(size));
        BIO_free(bio);
        X509_free(cert);
        return pem;
    }
};

class StalledConnection : public HttpsClient::Stalled {
public:
    StalledConnection(const std::string &ca_pem, unsigned short port, const std::string &partial)
        : connection_(ca_pem, port) {
        asio::write(*connection_.stream, asio::buffer(partial));
    }

    bool wait_closed_by_server() override {
        char byte = 0;
        beast::error_code ec;
        connection_.stream->read_some(asio::buffer(&byte, 1), ec);
        return ec == asio::error::eof || ec == ssl::error::stream_truncated || ec == asio::error::connection_reset;
    }

private:
    Connection connection_;
};

}  // namespace

HttpsClient::HttpsClient(std::string ca_pem, unsigned short port) : ca_pem_(std::move(ca_pem)), port_(port) {}
HttpsClient::~HttpsClient() = default;

HttpsReply HttpsClient::request(const std::string &method, const std::string &target, const std::string &body) {
    Connection c(ca_pem_, port_);
    http::request<http::string_body> req(http::string_to_verb(method), target, 11);
    req.set(http::field::host, "127.0.0.1");
    req.set(http::field::content_type, "application/json");
    req.body() = body;
    req.prepare_payload();
    // A server refusing a large body answers before reading it all: read its answer anyway.
    beast::error_code write_error;
    http::write(*c.stream, req, write_error);
    beast::flat_buffer buffer;
    http::response<http::string_body> res;
    http::read(*c.stream, buffer, res);
    return HttpsReply{res.result_int(), res.body(), c.peer_pem()};
}

std::unique_ptr<HttpsClient::Stalled> HttpsClient::stall(const std::string &partial) {
    return std::make_unique<StalledConnection>(ca_pem_, port_, partial);
}

}  // namespace liveupdate::tests
