// The server over real sockets: what reaches the routes, request limits,
// the event stream, and a page that never reads holding nothing up.
#include <boost/test/unit_test.hpp>

#include <boost/asio.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>

#include <sys/socket.h>
#include <sys/time.h>

#include <atomic>
#include <vector>

#include "host/web/web_server.hpp"

using namespace liveupdate::host::web;
namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
namespace json = boost::json;
using tcp = asio::ip::tcp;

namespace {

struct Served {
    std::atomic<int> triggers{0};
    WebServer server{WebOptions{"127.0.0.1", 0, false}, [this](const json::object &r) -> json::value {
                         const std::string op(r.at("op").as_string());
                         if (op == "trigger") ++triggers;
                         if (op == "get") return json::parse(R"({"kind": "List", "items": [], "rejected": []})");
                         if (op == "plugins") return json::object{{"plugins", json::array{}}};
                         if (op == "activity") return json::object{{"activity", json::object{}}};
                         return json::object{{"triggered", json::array{}}};
                     }};
    std::string host() const { return "127.0.0.1:" + std::to_string(server.port()); }

    tcp::socket connect(asio::io_context &io) const {
        tcp::socket s(io);
        s.connect(tcp::endpoint(asio::ip::make_address("127.0.0.1"), server.port()));
        return s;
    }

    http::response<http::string_body> send(http::request<http::string_body> req) const {
        asio::io_context io;
        tcp::socket s = connect(io);
        req.prepare_payload();
        http::write(s, req);
        beast::flat_buffer buffer;
        http::response<http::string_body> res;
        beast::error_code ec;
        http::read(s, buffer, res, ec);
        if (ec) res.result(http::status::unknown);  // no answer: the connection was closed
        return res;
    }

    // With the secret, as a script sends it.
    http::request<http::string_body> request(http::verb verb, const std::string &target) const {
        http::request<http::string_body> req{verb, target, 11};
        req.set(http::field::host, host());
        req.set(http::field::authorization, "Bearer " + server.secret());
        return req;
    }
};

// Reads from s until text appears (or the peer closes).
bool read_until(tcp::socket &s, std::string &seen, const std::string &text) {
    char buf[4096];
    while (seen.find(text) == std::string::npos) {
        beast::error_code ec;
        const std::size_t n = s.read_some(asio::buffer(buf), ec);
        if (ec) return false;
        seen.append(buf, n);
    }
    return true;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(web_server)

BOOST_AUTO_TEST_CASE(serves_the_page_on_loopback) {
    Served s;
    BOOST_TEST(s.server.address() == "http://" + s.host() + "/");
    BOOST_TEST(s.server.url() == "http://" + s.host() + "/?token=" + s.server.secret());
    const auto res = s.send(s.request(http::verb::get, "/"));
    BOOST_TEST(res.result_int() == 200u);
    BOOST_TEST(res.body().find("lu-token") != std::string::npos);
    BOOST_TEST(res["Content-Security-Policy"].find("default-src 'none'") != std::string_view::npos);
}

BOOST_AUTO_TEST_CASE(a_cross_origin_post_is_refused_on_the_wire) {
    Served s;
    auto req = s.request(http::verb::post, "/api/liveupdates/hello/trigger");
    req.erase(http::field::authorization);
    req.set(http::field::cookie, "lu-host-" + std::to_string(s.server.port()) + "=" + s.server.secret());
    req.set(http::field::origin, "http://evil.example");
    const std::string page = s.send(s.request(http::verb::get, "/")).body();
    const auto at = page.find("content=\"", page.find("lu-token")) + 9;
    req.set("X-LU-Token", page.substr(at, 32));
    BOOST_TEST(s.send(req).result_int() == 403u);
    BOOST_TEST(s.triggers == 0);
    req.set(http::field::origin, "http://" + s.host());
    BOOST_TEST(s.send(req).result_int() == 200u);
    BOOST_TEST(s.triggers == 1);
}

BOOST_AUTO_TEST_CASE(oversized_requests_are_refused) {
    Served s;
    auto big_body = s.request(http::verb::post, "/api/liveupdates/hello/trigger");
    big_body.body() = std::string(std::size_t{64} * 1024, 'x');
    BOOST_TEST(s.send(big_body).result_int() == 413u);
    auto big_header = s.request(http::verb::get, "/");
    big_header.set("X-Padding", std::string(std::size_t{32} * 1024, 'x'));
    const auto res = s.send(big_header);
    BOOST_TEST(res.result_int() != 200u);
    BOOST_TEST(s.triggers == 0);
}

BOOST_AUTO_TEST_CASE(the_printed_url_logs_in_on_the_wire) {
    Served s;
    auto anonymous = s.request(http::verb::get, "/api/status");
    anonymous.erase(http::field::authorization);
    BOOST_TEST(s.send(anonymous).result_int() == 401u);
    auto login = s.request(http::verb::get, "/?token=" + s.server.secret());
    login.erase(http::field::authorization);
    const auto res = s.send(login);
    BOOST_TEST(res.result_int() == 303u);
    const std::string cookie(res[http::field::set_cookie]);
    anonymous.set(http::field::cookie, cookie.substr(0, cookie.find(';')));
    BOOST_TEST(s.send(anonymous).result_int() == 200u);
}

BOOST_AUTO_TEST_CASE(events_stream_the_state_and_log_lines) {
    Served s;
    asio::io_context io;
    tcp::socket c = s.connect(io);
    http::write(c, s.request(http::verb::get, "/api/events"));
    std::string seen;
    BOOST_TEST_REQUIRE(read_until(c, seen, "event: state\ndata: {"));
    BOOST_TEST(seen.find("text/event-stream") != std::string::npos);
    s.server.log_line("hello", json::object{{"seq", 1}, {"text", "Will copy 1 file(s)"}});
    BOOST_TEST_REQUIRE(read_until(c, seen, "event: log\ndata: "));
    BOOST_TEST(read_until(c, seen, R"("liveUpdate":"hello")"));
}

BOOST_AUTO_TEST_CASE(a_page_that_never_reads_holds_nothing_up) {
    Served s;
    asio::io_context io;
    tcp::socket stalled = s.connect(io);
    http::write(stalled, s.request(http::verb::get, "/api/events"));
    std::string seen;
    BOOST_TEST_REQUIRE(read_until(stalled, seen, "event: state\ndata: {"));  // the stream is registered
    // Far more than the socket buffers hold: the server drops that page
    // rather than wait for it; the caller never blocks.
    constexpr int kLines = 6000;  // 24 MB: more than loopback's socket buffers take
    const std::string text(4096, 'x');
    for (int i = 0; i < kLines; ++i) s.server.log_line("hello", json::object{{"seq", i}, {"text", text}});
    BOOST_TEST(s.send(s.request(http::verb::get, "/api/status")).result_int() == 200u);
    // The stalled page was cut off: reading it now ends rather than streaming it all
    // (a page still open would have its read time out instead).
    const timeval limit{10, 0};
    ::setsockopt(stalled.native_handle(), SOL_SOCKET, SO_RCVTIMEO, &limit, sizeof limit);
    std::size_t received = 0;
    char buf[65536];
    while (received < std::size_t{kLines} * 4096u) {  // recv(2) itself: asio would wait on past the timeout
        const ssize_t n = ::recv(stalled.native_handle(), buf, sizeof buf, 0);
        if (n <= 0) break;
        received += static_cast<std::size_t>(n);
    }
    BOOST_TEST(received < std::size_t{kLines} * 4096u);
}

// One local process holding many requests it never finishes (on loopback
// every client has the same address) must not keep complete requests out.
BOOST_AUTO_TEST_CASE(half_sent_requests_do_not_starve_complete_ones) {
    Served s;
    asio::io_context io;
    // Open pages count apart: the flood below drops none of them.
    std::vector<tcp::socket> pages;
    for (int i = 0; i < 20; ++i) {
        pages.push_back(s.connect(io));
        http::write(pages.back(), s.request(http::verb::get, "/api/events"));
        std::string seen;
        BOOST_TEST_REQUIRE(read_until(pages.back(), seen, "event: state\ndata: {"));
    }
    std::vector<tcp::socket> half_sent;
    const std::string unfinished = "GET /api/status HTTP/1.1\r\nHost: " + s.host() + "\r\n";  // no blank line
    for (int i = 0; i < 140; ++i) {
        half_sent.push_back(s.connect(io));
        beast::error_code ec;  // the server may already have dropped it
        asio::write(half_sent.back(), asio::buffer(unfinished), ec);
    }
    int served = 0;
    for (int i = 0; i < 40; ++i)
        if (s.send(s.request(http::verb::get, "/api/status")).result_int() == 200u) ++served;
    BOOST_TEST(served == 40);
    s.server.log_line("hello", json::object{{"seq", 1}, {"text", "still here"}});
    int live = 0;
    for (auto &page : pages) {
        std::string seen;
        if (read_until(page, seen, "still here")) ++live;
    }
    BOOST_TEST(live == 20);
}

BOOST_AUTO_TEST_CASE(a_taken_port_is_an_error_unless_asked_to_fall_back) {
    Served s;
    const auto query = [](const json::object &) { return json::value(json::object{}); };
    BOOST_CHECK_THROW(WebServer(WebOptions{"127.0.0.1", s.server.port(), false}, query), std::runtime_error);
    WebServer other(WebOptions{"127.0.0.1", s.server.port(), true}, query);
    BOOST_TEST(other.port() != s.server.port());
}

BOOST_AUTO_TEST_SUITE_END()
