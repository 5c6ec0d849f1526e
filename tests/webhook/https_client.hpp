// A blocking HTTPS client for the webhook's tests (Boost.Beast over OpenSSL),
// verifying the server against a CA, as the API server does.
#pragma once

#include <memory>
#include <string>

namespace liveupdate::tests {

struct HttpsReply {
    unsigned status = 0;
    std::string body;
    std::string server_cert_pem;  // the certificate the server presented
};

class HttpsClient {
public:
    HttpsClient(std::string ca_pem, unsigned short port);
    ~HttpsClient();

    // One request on a new connection; throws on a TLS or transport failure.
    HttpsReply request(const std::string &method, const std::string &target, const std::string &body = {});

    // A connection that sends `partial` and then nothing: returns once the
    // server closed it (true) or the read failed otherwise (false).
    class Stalled;
    std::unique_ptr<Stalled> stall(const std::string &partial);

private:
    std::string ca_pem_;
    unsigned short port_;
};

class HttpsClient::Stalled {
public:
    virtual ~Stalled() = default;
    // Blocks until the server ends the connection; true when it did so cleanly or by closing.
    virtual bool wait_closed_by_server() = 0;
};

}  // namespace liveupdate::tests
