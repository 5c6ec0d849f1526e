#include "common/kubernetes/pod_exec.hpp"

#include <boost/asio/connect.hpp>
#include <boost/asio/ip/address.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/ssl.hpp>
#include <boost/beast/websocket.hpp>
#include <boost/beast/websocket/ssl.hpp>
#include <boost/json.hpp>

#include <exception>
#include <future>
#include <optional>
#include <thread>

namespace liveupdate::kube {
namespace {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
namespace websocket = beast::websocket;
namespace json = boost::json;
using tcp = asio::ip::tcp;

constexpr const char *kV5 = "v5.channel.k8s.io";
constexpr const char *kV4 = "v4.channel.k8s.io";
constexpr unsigned char kStdin = 0, kStdout = 1, kStderr = 2, kStatus = 3, kClose = 255;
constexpr std::size_t kChunk = 64 * 1024;

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
        if (tls.ca_pem.empty()) ctx.set_default_verify_paths();
        else ctx.add_certificate_authority(asio::buffer(tls.ca_pem));
    }
    if (!creds.cert_pem.empty()) {
        ctx.use_certificate_chain(asio::buffer(creds.cert_pem));
        ctx.use_private_key(asio::buffer(creds.key_pem), asio::ssl::context::pem);
    }
}

bool mentions_missing_executable(std::string_view m) {
    return m.find("executable file not found") != std::string_view::npos ||
           m.find("no such file or directory") != std::string_view::npos;
}

// One exec session on an io_context run by the calling thread; the stdin
// feeder runs on its own thread and hands each chunk over, waiting for it to
// be written, so the session reads output while stdin is being sent.
class Session {
public:
    using Ws = websocket::stream<beast::ssl_stream<beast::tcp_stream>>;

    Session(asio::io_context &ioc, Ws &ws, bool v5, const ExecOutputFn &on_output)
        : ioc_(ioc), ws_(ws), v5_(v5), on_output_(on_output), timer_(ioc) {}

    PodExecResult run(const ExecStdinFn *stdin_feeder, std::chrono::milliseconds timeout) {
        auto guard = asio::make_work_guard(ioc_);
        timer_.expires_after(timeout);
        timer_.async_wait([this](beast::error_code ec) {
            if (ec) return;
            timed_out_ = true;
            finish();
        });
        read_next();
        std::thread feeder;
        std::exception_ptr feeder_error;
        if (stdin_feeder != nullptr) {
            feeder = std::thread([&] {
                try {
                    (*stdin_feeder)([this](const char *d, std::size_t n) {
                        for (std::size_t off = 0; off < n; off += kChunk) {
                            std::string frame(1, static_cast<char>(kStdin));
                            frame.append(d + off, std::min(kChunk, n - off));
                            send(std::move(frame));
                        }
                    });
                    // v4 has no way to say "end of stdin": the command sees it when the session ends.
                    if (v5_) send(std::string{static_cast<char>(kClose), static_cast<char>(kStdin)});
                } catch (const StdinRefused &) {
                    // The session ended first (the command exited early): its status tells why.
                } catch (...) {
                    feeder_error = std::current_exception();
                    asio::post(ioc_, [this] { finish(); });
                }
                asio::post(ioc_, [&guard] { guard.reset(); });
            });
        } else {
            guard.reset();
        }
        ioc_.run();
        if (feeder.joinable()) feeder.join();
        if (feeder_error) std::rethrow_exception(feeder_error);
        PodExecResult r;
        r.timed_out = timed_out_;
        if (timed_out_) {
            r.exit_code = -1;
            r.failure = "did not finish within " + std::to_string(timeout.count() / 1000) + "s";
            return r;
        }
        if (!read_error_.empty() && status_.empty()) {
            r.exit_code = -1;
            r.failure = "the exec stream ended without a status: " + read_error_;
            return r;
        }
        r.exit_code = exit_code_of_status(status_, r.failure);
        return r;
    }

private:
    struct StdinRefused {};

    // [feeder thread] Sends one frame through the io thread and waits for it.
    void send(std::string frame) {
        auto done = std::make_shared<std::promise<bool>>();
        auto result = done->get_future();
        asio::post(ioc_, [this, frame = std::move(frame), done]() mutable {
            if (finished_) {
                done->set_value(false);
                return;
            }
            auto data = std::make_shared<std::string>(std::move(frame));
            ws_.binary(true);
            ws_.async_write(asio::buffer(*data), [data, done](beast::error_code ec, std::size_t) { done->set_value(!ec); });
        });
        if (!result.get()) throw StdinRefused{};
    }

    void read_next() {
        ws_.async_read(buffer_, [this](beast::error_code ec, std::size_t) {
            if (ec) {
                if (ec != websocket::error::closed && ec != asio::error::operation_aborted && !finished_)
                    read_error_ = ec.message();
                finish();
                return;
            }
            const auto data = buffer_.cdata();
            const std::string_view frame(static_cast<const char *>(data.data()), data.size());
            if (!frame.empty()) {
                const auto channel = static_cast<unsigned char>(frame[0]);
                if (channel == kStdout || channel == kStderr) on_output_(channel == kStderr, frame.substr(1));
                else if (channel == kStatus) status_.append(frame.substr(1));
            }
            buffer_.consume(buffer_.size());
            read_next();
        });
    }

    // [io thread] Ends the session: the socket closes, pending operations end.
    void finish() {
        if (finished_) return;
        finished_ = true;
        timer_.cancel();
        beast::error_code ignored;
        beast::get_lowest_layer(ws_).socket().shutdown(tcp::socket::shutdown_both, ignored);
        beast::get_lowest_layer(ws_).close();
    }

    asio::io_context &ioc_;
    Ws &ws_;
    bool v5_;
    const ExecOutputFn &on_output_;
    asio::steady_timer timer_;
    beast::flat_buffer buffer_;
    std::string status_;
    std::string read_error_;
    bool finished_ = false;
    bool timed_out_ = false;
};

}  // namespace

int exit_code_of_status(std::string_view status_json, std::string &failure) {
    boost::system::error_code ec;
    const json::value v = json::parse(status_json, ec);
    if (ec || !v.is_object()) {
        failure = "unreadable exec status: " + std::string(status_json.substr(0, 200));
        return -1;
    }
    const auto &o = v.as_object();
    const auto text = [](const json::object &obj, const char *key) {
        const auto *x = obj.if_contains(key);
        return x != nullptr && x->is_string() ? std::string(x->as_string()) : std::string();
    };
    if (text(o, "status") == "Success") return 0;
    const std::string message = text(o, "message");
    if (const auto *details = o.if_contains("details"); details != nullptr && details->is_object())
        if (const auto *causes = details->as_object().if_contains("causes"); causes != nullptr && causes->is_array())
            for (const auto &c : causes->as_array())
                if (c.is_object() && text(c.as_object(), "reason") == "ExitCode") {
                    try {
                        return std::stoi(text(c.as_object(), "message"));
                    } catch (const std::exception &) {
                        break;
                    }
                }
    failure = message.empty() ? std::string(status_json.substr(0, 300)) : message;
    return mentions_missing_executable(message) ? 127 : -1;
}

std::string exec_path(const PodExecTarget &t, const std::vector<std::string> &command, bool with_stdin) {
    std::string path = "/api/v1/namespaces/" + url_escape(t.namespace_name.empty() ? "default" : t.namespace_name) +
                       "/pods/" + url_escape(t.pod) + "/exec?stdout=true&stderr=true";
    if (with_stdin) path += "&stdin=true";
    if (!t.container.empty()) path += "&container=" + url_escape(t.container);
    for (const auto &c : command) path += "&command=" + url_escape(c);
    return path;
}

PodExecResult exec_in_pod(ApiClient &client, const PodExecTarget &target, const std::vector<std::string> &command,
                          const ExecStdinFn *stdin_feeder, const ExecOutputFn &on_output,
                          std::chrono::milliseconds timeout) {
    const ClientConfig &config = client.config();
    const Server server = server_of(config.server);
    const std::string verify_name = config.tls.server_name.empty() ? server.host : config.tls.server_name;
    const std::string path = exec_path(target, command, stdin_feeder != nullptr);
    const std::string where = "exec in pod " + target.namespace_name + "/" + target.pod;
    for (int attempt = 0;; ++attempt) {
        const Credentials creds = client.credentials().current();
        asio::io_context ioc;
        asio::ssl::context ctx(asio::ssl::context::tls_client);
        try {
            tls_setup(ctx, config.tls, creds);
        } catch (const boost::system::system_error &e) {
            throw ApiError(0, "", where + ": the TLS material of " + config.where + " is unusable: " + e.what());
        }
        Session::Ws ws(ioc, ctx);
        websocket::response_type response;
        beast::error_code ec;
        auto &tcp_stream = beast::get_lowest_layer(ws);
        tcp_stream.expires_after(std::min<std::chrono::milliseconds>(timeout, std::chrono::seconds(30)));
        tcp::resolver resolver(ioc);
        const auto endpoints = resolver.resolve(server.host, server.port, ec);
        if (!ec) tcp_stream.connect(endpoints, ec);
        if (ec) throw ApiError(0, "", where + ": cannot reach the API server " + config.server + ": " + ec.message());
        if (!config.tls.insecure) ws.next_layer().set_verify_callback(asio::ssl::host_name_verification(verify_name));
        if (!is_ip(verify_name)) SSL_set_tlsext_host_name(ws.next_layer().native_handle(), verify_name.c_str());
        ws.next_layer().handshake(asio::ssl::stream_base::client, ec);
        if (ec) throw ApiError(0, "", where + ": TLS with the API server " + config.server + " failed: " + ec.message());
        tcp_stream.expires_never();
        ws.set_option(websocket::stream_base::timeout{std::chrono::seconds(30), websocket::stream_base::none(), false});
        ws.set_option(websocket::stream_base::decorator([&creds](websocket::request_type &req) {
            req.set(http::field::sec_websocket_protocol, std::string(kV5) + ", " + kV4);
            req.set(http::field::user_agent, "lu-host");
            if (!creds.token.empty()) req.set(http::field::authorization, "Bearer " + creds.token);
        }));
        ws.read_message_max(64 * 1024 * 1024);
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
        const std::string protocol(response[http::field::sec_websocket_protocol]);
        if (protocol != kV5 && protocol != kV4)
            throw PodExecError(0, "", where + ": the API server offered no channel subprotocol we speak (v5 or v4), it chose \"" +
                                          protocol + "\"");
        Session session(ioc, ws, protocol == kV5, on_output);
        PodExecResult r = session.run(stdin_feeder, timeout);
        r.protocol = protocol;
        return r;
    }
}

}  // namespace liveupdate::kube
