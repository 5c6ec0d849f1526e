// A watch's long poll (kube::ApiClient::stream_lines) is woken by its
// cancel where it waits, so that `lu-host up --from-cluster` stops at once
// rather than when libcurl next looks (about once a second per idle watch).
// Against a plain HTTP server on 127.0.0.1 that sends one line and then
// nothing, as an API server's watch does while nothing changes.
#define BOOST_TEST_MODULE api_stream
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <boost/test/unit_test.hpp>

#include <future>
#include <string>
#include <thread>

#include "common/kube/api_client.hpp"
#include "common/stream_cancel.hpp"

using liveupdate::common::StreamCancel;
namespace kube = liveupdate::kube;

namespace {

// Answers one request with a chunked 200 holding one line, then stays
// silent until the client hangs up.
class SilentWatchServer {
public:
    SilentWatchServer() {
        listener_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        sockaddr_in addr{};
        addr.sin_family = AF_INET;
        addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        socklen_t len = sizeof addr;
        if (listener_ < 0 || ::bind(listener_, reinterpret_cast<sockaddr *>(&addr), sizeof addr) != 0 ||
            ::listen(listener_, 1) != 0 || ::getsockname(listener_, reinterpret_cast<sockaddr *>(&addr), &len) != 0)
            throw std::runtime_error("cannot listen on 127.0.0.1");
        port_ = ntohs(addr.sin_port);
        thread_ = std::thread([this] { serve(); });
    }
    ~SilentWatchServer() {
        ::shutdown(listener_, SHUT_RDWR);
        thread_.join();
        ::close(listener_);
    }
    std::string url() const { return "http://127.0.0.1:" + std::to_string(port_); }

private:
    void serve() {
        const int fd = ::accept4(listener_, nullptr, nullptr, SOCK_CLOEXEC);
        if (fd < 0) return;
        std::string request;
        char buffer[4096];
        while (request.find("\r\n\r\n") == std::string::npos) {
            const ssize_t n = ::read(fd, buffer, sizeof buffer);
            if (n <= 0) break;
            request.append(buffer, static_cast<std::size_t>(n));
        }
        const std::string line = "{\"type\":\"BOOKMARK\"}\n";
        char size[16];
        std::snprintf(size, sizeof size, "%zx", line.size());
        const std::string answer =
            "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n" +
            std::string(size) + "\r\n" + line + "\r\n";
        if (::write(fd, answer.data(), answer.size()) == static_cast<ssize_t>(answer.size()))
            while (::read(fd, buffer, sizeof buffer) > 0) {
            }
        ::close(fd);
    }

    int listener_ = -1;
    unsigned short port_ = 0;
    std::thread thread_;
};

}  // namespace

BOOST_AUTO_TEST_SUITE(api_stream)

BOOST_AUTO_TEST_CASE(a_waiting_watch_is_woken_by_its_cancel) {
    SilentWatchServer server;
    kube::ClientConfig config;
    config.server = server.url();
    config.where = "a test server";
    kube::ApiClient client(config);
    StreamCancel cancel;
    std::promise<void> first_line;
    std::string error;
    std::thread watch([&] {
        bool seen = false;
        try {
            client.stream_lines(
                "/api/v1/namespaces/h5/configmaps?watch=1",
                [&](std::string_view) {
                    if (!seen) first_line.set_value();
                    seen = true;
                    return true;
                },
                cancel);
        } catch (const std::exception &e) {
            error = e.what();
            if (!seen) first_line.set_value();
        }
    });
    first_line.get_future().get();  // the watch is in and now waits for a next line
    // Woken where it waits: cancel() finds the stream attached and wakes it.
    BOOST_TEST(cancel.cancel());
    watch.join();
    BOOST_TEST(error == "");
    BOOST_TEST(!cancel.cancel());  // the stream has let go of it
}

BOOST_AUTO_TEST_CASE(a_cancel_wakes_what_is_attached_until_it_is_detached) {
    StreamCancel cancel;
    int woken = 0;
    BOOST_TEST(!cancel.cancelled());
    cancel.attach([&] { ++woken; });
    BOOST_TEST(cancel.cancel());
    BOOST_TEST(cancel.cancelled());
    BOOST_TEST(woken == 1);
    cancel.detach();
    BOOST_TEST(!cancel.cancel());
    BOOST_TEST(woken == 1);
}

BOOST_AUTO_TEST_SUITE_END()
