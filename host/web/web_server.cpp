#include "host/web/web_server.hpp"

#include <atomic>
#include <chrono>
#include <deque>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <thread>
#include <vector>

#include <boost/asio.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>

#include "common/mutex.hpp"
#include "host/core/waiting_connections.hpp"

namespace liveupdate::host::web {
namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
namespace json = boost::json;
using tcp = asio::ip::tcp;
using namespace std::chrono_literals;

namespace {

constexpr std::size_t kHeaderLimit = std::size_t{8} * 1024;
constexpr std::size_t kBodyLimit = std::size_t{4} * 1024;  // a trigger has no body; nothing else is posted
constexpr std::size_t kMaxConnections = 128;
// On loopback every client has the same address: "per client" cannot be per
// address. Instead few connections may wait for their request at a time and
// the oldest one goes when another arrives, so a request sent whole is
// always read, however many are left half-sent.
constexpr std::size_t kMaxWaiting = 16;
constexpr std::size_t kMaxStreams = 32;               // event streams count apart: they sent their request
constexpr std::size_t kStreamBacklogBytes = 1 << 20;  // a page that reads nothing is dropped past this
constexpr auto kRequestDeadline = 5s;                 // from waiting for a request to having it whole
constexpr auto kWriteDeadline = 10s;
constexpr auto kHeartbeat = 15s;
constexpr auto kStateCoalescing = 50ms;
constexpr auto kStateRefresh = 2s;  // plugin reloads and container changes reach the page without an event
constexpr unsigned kThreads = 2;

std::string header(const http::request<http::string_body> &req, http::field f) {
    const auto it = req.find(f);
    return it == req.end() ? std::string() : std::string(it->value());
}

std::string header(const http::request<http::string_body> &req, std::string_view name) {
    const auto it = req.find(name);
    return it == req.end() ? std::string() : std::string(it->value());
}

std::string sse(std::string_view event, std::string_view data) {
    std::string out = "event: ";
    out += event;
    out += "\ndata: ";
    out += data;  // one line: serialized JSON has no newline
    out += "\n\n";
    return out;
}

}  // namespace

// One page's event stream: a queue of whole events written in order on the
// connection's strand; past kStreamBacklogBytes the page is dropped (it will
// reconnect and get the current state).
class EventStream : public std::enable_shared_from_this<EventStream> {
public:
    explicit EventStream(beast::tcp_stream stream) : stream_(std::move(stream)), heartbeat_(stream_.get_executor()) {}

    void start(std::string first) {
        auto response = std::make_shared<http::response<http::empty_body>>(http::status::ok, 11);
        response->set(http::field::content_type, "text/event-stream");
        response->set(http::field::cache_control, "no-store");
        response->set("X-Content-Type-Options", "nosniff");
        response->keep_alive(true);
        auto serializer = std::make_shared<http::response_serializer<http::empty_body>>(*response);
        // Events broadcast while the header is on its way wait in the queue
        // behind the first state: one write at a time on a stream.
        writing_ = true;
        stream_.expires_after(kWriteDeadline);
        http::async_write_header(stream_, *serializer,
                                 [self = shared_from_this(), response, serializer, first = std::move(first)](
                                     beast::error_code ec, std::size_t) mutable {
                                     if (ec) return self->close();
                                     self->backlog_ += first.size();
                                     self->queue_.push_front(std::move(first));
                                     self->write_next();
                                     self->beat();
                                 });
    }

    // From any thread.
    void send(std::string event) {
        asio::post(stream_.get_executor(), [self = shared_from_this(), event = std::move(event)]() mutable {
            self->enqueue(std::move(event));
        });
    }

    bool closed() const { return closed_.load(); }

    void close() {
        asio::post(stream_.get_executor(), [self = shared_from_this()] {
            if (self->closed_.exchange(true)) return;
            self->heartbeat_.cancel();
            beast::error_code ignored;
            self->stream_.socket().shutdown(tcp::socket::shutdown_both, ignored);
            self->stream_.close();
        });
    }

private:
    void enqueue(std::string event) {
        if (closed_) return;
        backlog_ += event.size();
        queue_.push_back(std::move(event));
        if (backlog_ > kStreamBacklogBytes) return close();
        if (!writing_) write_next();
    }

    void write_next() {
        if (queue_.empty() || closed_) {
            writing_ = false;
            return;
        }
        writing_ = true;
        stream_.expires_after(kWriteDeadline);
        asio::async_write(stream_, asio::buffer(queue_.front()),
                          [self = shared_from_this()](beast::error_code ec, std::size_t) {
                              if (ec) return self->close();
                              self->backlog_ -= self->queue_.front().size();
                              self->queue_.pop_front();
                              self->write_next();
                          });
    }

    // A comment line now and then: a page that went away is noticed.
    void beat() {
        heartbeat_.expires_after(kHeartbeat);
        heartbeat_.async_wait([self = shared_from_this()](beast::error_code ec) {
            if (ec || self->closed_) return;
            self->enqueue(": keep-alive\n\n");
            self->beat();
        });
    }

    beast::tcp_stream stream_;
    asio::steady_timer heartbeat_;
    std::deque<std::string> queue_;
    std::size_t backlog_ = 0;
    bool writing_ = false;
    std::atomic<bool> closed_{false};
};

// Handlers capture the server by pointer: it outlives them, as they are
// destroyed with io_, its member (a stopped io_context never runs them).
class WebServerImpl {
public:
    WebServerImpl(const WebOptions &options, QueryFn query)
        : acceptor_(asio::make_strand(io_)),
          state_strand_(asio::make_strand(io_)),
          state_timer_(state_strand_),
          refresh_timer_(state_strand_) {
        boost::system::error_code ec;
        const auto address = asio::ip::make_address(options.address, ec);
        if (ec) throw std::runtime_error("--web-address " + options.address + " is not an IP address");
        open(tcp::endpoint(address, options.port), ec);
        if (ec && options.fall_back_to_any_port) open(tcp::endpoint(address, 0), ec);
        if (ec)
            throw std::runtime_error("cannot serve the status page on " + options.address + ":" +
                                     std::to_string(options.port) + ": " + ec.message() +
                                     " (--web-port to choose another, --no-web for none)");
        port_ = acceptor_.local_endpoint().port();
        address_ = options.address;
        routes_.emplace(Guard::for_address(options.address, port_, random_token(), random_token()), std::move(query));
    }

    void start() {
        accept();
        refresh();
        for (unsigned i = 0; i < kThreads; ++i) threads_.emplace_back([this] { io_.run(); });
    }

    ~WebServerImpl() { stop(); }

    void stop() {
        io_.stop();
        for (auto &t : threads_) t.join();
        threads_.clear();
    }

    std::string url() const {
        const bool v6 = address_.find(':') != std::string::npos;
        return "http://" + (v6 ? "[" + address_ + "]" : address_) + ":" + std::to_string(port_) + "/";
    }
    const std::string &secret() const { return routes_->guard().secret; }
    unsigned short port() const { return port_; }

    void state_changed() {
        if (state_pending_.exchange(true)) return;
        asio::post(state_strand_, [self = this] {
            self->state_timer_.expires_after(kStateCoalescing);
            self->state_timer_.async_wait([self](beast::error_code ec) {
                if (ec) return;
                self->state_pending_ = false;
                self->broadcast_state();
            });
        });
    }

    void log_line(const std::string &live_update, const json::object &line) {
        json::object event = line;
        event["liveUpdate"] = live_update;
        broadcast(sse("log", json::serialize(event)));
    }

    const WebRoutes &routes() const { return *routes_; }
    std::atomic<std::size_t> &connections() { return connections_; }
    WaitingConnections &waiting() { return waiting_; }

    bool add_stream(const std::shared_ptr<EventStream> &stream) {
        common::MutexLock lock(streams_mutex_);
        std::erase_if(streams_, [](const std::shared_ptr<EventStream> &s) { return s->closed(); });
        if (streams_.size() >= kMaxStreams) return false;
        streams_.push_back(stream);
        return true;
    }

private:
    void open(const tcp::endpoint &endpoint, boost::system::error_code &ec) {
        if (acceptor_.is_open()) acceptor_.close(ec);
        ec.clear();
        acceptor_.open(endpoint.protocol(), ec);
        if (!ec) acceptor_.set_option(asio::socket_base::reuse_address(true), ec);
        if (!ec) acceptor_.bind(endpoint, ec);
        if (!ec) acceptor_.listen(asio::socket_base::max_listen_connections, ec);
    }

    void accept();

    void broadcast(const std::string &event) {
        common::MutexLock lock(streams_mutex_);
        std::erase_if(streams_, [](const std::shared_ptr<EventStream> &s) { return s->closed(); });
        for (const auto &s : streams_) s->send(event);
    }

    bool has_streams() {
        common::MutexLock lock(streams_mutex_);
        return !streams_.empty();
    }

    void broadcast_state() {
        if (has_streams()) broadcast(sse("state", routes_->state_json()));
    }

    void refresh() {
        refresh_timer_.expires_after(kStateRefresh);
        refresh_timer_.async_wait([self = this](beast::error_code ec) {
            if (ec) return;
            self->broadcast_state();
            self->refresh();
        });
    }

    std::atomic<std::size_t> connections_{0};  // before io_: sessions count down as io_ destroys them
    WaitingConnections waiting_{kMaxWaiting};  // before io_ too: sessions leave it as io_ destroys them
    asio::io_context io_;
    tcp::acceptor acceptor_;
    // The state goes out from one strand: pages get states in the order they were made.
    asio::strand<asio::io_context::executor_type> state_strand_;
    asio::steady_timer state_timer_;
    asio::steady_timer refresh_timer_;
    std::atomic<bool> state_pending_{false};
    std::optional<WebRoutes> routes_;
    std::string address_;
    unsigned short port_ = 0;
    common::Mutex streams_mutex_;
    std::vector<std::shared_ptr<EventStream>> streams_ LU_GUARDED_BY(streams_mutex_);
    std::vector<std::thread> threads_;
};

namespace {

// One HTTP connection: requests read with bounded headers and body under a
// deadline, answered in order; /api/events hands the connection to an EventStream.
class HttpSession : public std::enable_shared_from_this<HttpSession> {
public:
    HttpSession(tcp::socket socket, WebServerImpl *server) : stream_(std::move(socket)), server_(server) {
        ++server_->connections();
    }
    ~HttpSession() {
        if (waiting_id_) server_->waiting().remove(*waiting_id_);
        --server_->connections();
    }

    void run() {
        asio::dispatch(stream_.get_executor(), [self = shared_from_this()] { self->read(); });
    }

private:
    void read() {
        parser_.emplace();
        parser_->header_limit(kHeaderLimit);
        parser_->body_limit(kBodyLimit);
        stream_.expires_after(kRequestDeadline);
        std::weak_ptr<HttpSession> weak = weak_from_this();
        auto executor = stream_.get_executor();
        // A drop runs on this strand, so after waiting_id_ is assigned.
        waiting_id_ = server_->waiting().add([weak, executor](std::uint64_t id) {
            asio::post(executor, [weak, id] {
                if (auto self = weak.lock(); self && self->waiting_id_ == id) self->close();
            });
        });
        http::async_read(stream_, buffer_, *parser_,
                         [self = shared_from_this()](beast::error_code ec, std::size_t) { self->on_read(ec); });
    }

    void on_read(beast::error_code ec) {
        if (waiting_id_) server_->waiting().remove(*waiting_id_);
        waiting_id_.reset();
        if (ec == http::error::body_limit || ec == http::error::header_limit)
            return reply(WebResponse{413, "application/json", "{\"error\":\"request too large\"}\n", {}, false}, false);
        if (ec) return close();
        const http::request<http::string_body> req = parser_->release();
        const WebRequest request{
            std::string(req.method_string()),       std::string(req.target()), header(req, http::field::host),
            header(req, http::field::origin),       header(req, "X-LU-Token"), header(req, http::field::cookie),
            header(req, http::field::authorization)};
        WebResponse response = server_->routes().handle(request);
        if (response.event_stream) {
            auto events = std::make_shared<EventStream>(std::move(stream_));
            if (!server_->add_stream(events)) {
                events->close();
                return;
            }
            events->start(sse("state", server_->routes().state_json()));
            return;
        }
        reply(std::move(response), req.keep_alive(), req.method() == http::verb::head);
    }

    void reply(WebResponse r, bool keep_alive, bool head = false) {
        auto res = std::make_shared<http::response<http::string_body>>(static_cast<http::status>(r.status), 11);
        res->set(http::field::server, "lu-host");
        if (!r.content_type.empty()) res->set(http::field::content_type, r.content_type);
        for (const auto &[name, value] : r.headers) res->set(name, value);
        res->keep_alive(keep_alive);
        if (head) {
            res->content_length(r.body.size());
        } else {
            res->body() = std::move(r.body);
            res->prepare_payload();
        }
        stream_.expires_after(kWriteDeadline);
        http::async_write(stream_, *res, [self = shared_from_this(), res](beast::error_code ec, std::size_t) {
            if (ec || !res->keep_alive()) return self->close();
            self->read();
        });
    }

    void close() {
        beast::error_code ignored;
        stream_.socket().shutdown(tcp::socket::shutdown_send, ignored);
        stream_.close();
    }

    beast::tcp_stream stream_;
    beast::flat_buffer buffer_{kHeaderLimit};
    std::optional<http::request_parser<http::string_body>> parser_;
    std::optional<std::uint64_t> waiting_id_;  // while waiting for a request
    WebServerImpl *server_;
};

}  // namespace

void WebServerImpl::accept() {
    acceptor_.async_accept(asio::make_strand(io_), [self = this](beast::error_code ec, tcp::socket s) {
        if (ec == asio::error::operation_aborted) return;
        if (!ec) {
            if (self->connections().load() >= kMaxConnections) {
                beast::error_code ignored;
                s.close(ignored);
            } else {
                std::make_shared<HttpSession>(std::move(s), self)->run();
            }
        }
        self->accept();
    });
}

WebServer::WebServer(const WebOptions &options, QueryFn query)
    : impl_(std::make_unique<WebServerImpl>(options, std::move(query))) {
    impl_->start();
}

WebServer::~WebServer() { impl_->stop(); }

std::string WebServer::url() const { return impl_->url() + "?token=" + impl_->secret(); }
std::string WebServer::address() const { return impl_->url(); }
const std::string &WebServer::secret() const { return impl_->secret(); }
unsigned short WebServer::port() const { return impl_->port(); }
void WebServer::state_changed() { impl_->state_changed(); }
void WebServer::log_line(const std::string &live_update, const json::object &line) {
    impl_->log_line(live_update, line);
}

}  // namespace liveupdate::host::web
