// The webhook's HTTPS server with the real liveupdate plugin through the
// ABI: answers, limits, deadlines, hot reload of the plugin (host/reload)
// and rotation of the certificate files.
#define BOOST_TEST_MODULE webhook_host_tests
#include <boost/test/unit_test.hpp>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <condition_variable>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <thread>

#include "host/core/log.hpp"
#include "host/webhook/certificates.hpp"
#include "host/webhook/webhook_service.hpp"
#include "tests/webhook/https_client.hpp"

using namespace liveupdate::host::webhook;
using liveupdate::tests::HttpsClient;
namespace fs = std::filesystem;
namespace json = boost::json;

namespace {

void write_file(const fs::path &file, const std::string &text) {
    const fs::path temp = file.string() + ".tmp";
    std::ofstream(temp) << text;
    fs::rename(temp, file);
}

// Log lines as they come, to wait for one (a reload's outcome) without sleeping.
class LogWatch {
public:
    LogWatch() {
        previous_ = liveupdate::host::log::set_sink([this](liveupdate::common::LogLevel, std::string_view line) {
            std::lock_guard lock(mutex_);
            lines_.emplace_back(line);
            changed_.notify_all();
        });
    }
    ~LogWatch() { liveupdate::host::log::set_sink(previous_); }

    void wait_for(const std::string &text) {
        std::unique_lock lock(mutex_);
        changed_.wait(lock, [&] {
            for (std::size_t i = seen_; i < lines_.size(); ++i)
                if (lines_[i].find(text) != std::string::npos) {
                    seen_ = i + 1;
                    return true;
                }
            return false;
        });
    }

private:
    liveupdate::host::LogSinkFn previous_;
    std::mutex mutex_;
    std::condition_variable changed_;
    std::vector<std::string> lines_;
    std::size_t seen_ = 0;
};

struct Fixture {
    fs::path dir;
    ServingCertificates certs = make_serving_certificates({"test webhook", {}, {"127.0.0.1"}, 1});
    LogWatch log;
    std::unique_ptr<WebhookService> service;

    explicit Fixture(std::chrono::milliseconds request_deadline = std::chrono::milliseconds(500)) {
        dir = fs::temp_directory_path() / ("lu-webhook-test-" + std::to_string(::getpid()));
        fs::remove_all(dir);
        fs::create_directories(dir);
        write_file(dir / "tls.crt", certs.serving.cert_pem);
        write_file(dir / "tls.key", certs.serving.key_pem);
        fs::copy_file(LU_TEST_LIVEUPDATE_PLUGIN, dir / "libliveupdate.so");
        ServiceOptions options;
        options.server.address = "127.0.0.1";
        options.server.port = 0;
        options.server.body_limit = std::size_t{64} * 1024;
        options.server.request_deadline = request_deadline;
        options.cert = dir / "tls.crt";
        options.key = dir / "tls.key";
        options.plugin = dir / "libliveupdate.so";
        options.probe_plugins = false;  // the prober is lu-host itself; this test is not
        service = std::make_unique<WebhookService>(options);
    }
    ~Fixture() {
        service.reset();
        fs::remove_all(dir);
    }

    HttpsClient client() const { return HttpsClient(certs.ca.cert_pem, service->port()); }

    // Replaces the plugin file as a build does (a new file renamed over the old one).
    void install_plugin(const fs::path &built) {
        fs::copy_file(built, dir / "plugin.new", fs::copy_options::overwrite_existing);
        fs::rename(dir / "plugin.new", dir / "libliveupdate.so");
    }
};

// Connections left idle do not expire while a test makes hundreds of them.
struct PatientFixture : Fixture {
    PatientFixture() : Fixture(std::chrono::minutes(1)) {}
};

// A plain TCP connection that sends nothing (not even a TLS hello).
int idle_connection(unsigned short port) {
    const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    BOOST_REQUIRE(fd >= 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_port = htons(port);
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    BOOST_REQUIRE(::connect(fd, reinterpret_cast<const sockaddr *>(&address), sizeof address) == 0);
    return fd;
}

// True when the server closed the connection within the time given.
bool closed_by_server(int fd, int within_ms) {
    pollfd p{fd, POLLIN, 0};
    if (::poll(&p, 1, within_ms) != 1) return false;
    char c = 0;
    return ::read(fd, &c, 1) <= 0;
}

std::string review(const std::string &spec) {
    return R"({"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":"u-1",
        "kind":{"group":"tilt.dev","version":"v1alpha1","kind":"LiveUpdate"},"operation":"CREATE",
        "object":{"apiVersion":"tilt.dev/v1alpha1","kind":"LiveUpdate","metadata":{"name":"web"},"spec":)" +
           spec + "}}}";
}

const std::string kValid = review(R"({"basePath":".","selector":{"kubernetes":{"discoveryName":"d","image":"i"}},
    "syncs":[{"localPath":"src","containerPath":"/app"}]})");
const std::string kInvalid = review(R"({"basePath":".","syncs":[{"localPath":"src","containerPath":"app"}]})");

json::object response_of(const liveupdate::tests::HttpsReply &reply) {
    BOOST_REQUIRE_EQUAL(reply.status, 200u);
    return json::parse(reply.body).at("response").as_object();
}

}  // namespace

BOOST_FIXTURE_TEST_SUITE(webhook_server, Fixture)

BOOST_AUTO_TEST_CASE(answers_over_tls_with_the_plugin) {
    BOOST_TEST(client().request("GET", "/healthz").status == 200u);
    const json::object allowed = response_of(client().request("POST", "/validate", kValid));
    BOOST_TEST(allowed.at("allowed").as_bool());
    BOOST_TEST(allowed.at("uid").as_string() == "u-1");
    const json::object refused = response_of(client().request("POST", "/validate", kInvalid));
    BOOST_TEST(!refused.at("allowed").as_bool());
    BOOST_TEST(refused.at("status").at("details").at("causes").at(0).at("field").as_string() == "spec.syncs[0]");
}

BOOST_AUTO_TEST_CASE(garbage_and_oversized_bodies) {
    const auto garbage = client().request("POST", "/validate", "{\"kind\": ");
    BOOST_TEST(garbage.status == 400u);
    BOOST_TEST(garbage.body.find("not JSON") != std::string::npos);
    BOOST_TEST(client().request("POST", "/validate", std::string(std::size_t{200} * 1024, 'x')).status == 413u);
    for (const std::string &body : {std::string("{\"kind\": "), std::string("[]"),
                                    std::string(R"({"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview",
        "request":{"uid":"u","operation":"CREATE","kind":{"group":"","version":"v1","kind":"Pod"},"object":7}})")}) {
        const auto mutate = client().request("POST", "/mutate", body);
        BOOST_TEST(mutate.status == 400u, body);
        BOOST_TEST(mutate.body.find("bad AdmissionReview") != std::string::npos, body);
    }
    BOOST_TEST(client().request("POST", "/mutate", std::string(std::size_t{200} * 1024, 'x')).status == 413u);
    // The server is still there.
    BOOST_TEST(response_of(client().request("POST", "/validate", kValid)).at("allowed").as_bool());
}

BOOST_AUTO_TEST_CASE(a_slow_client_holds_up_nobody_and_is_cut_off) {
    auto slow = client().stall("POST /validate HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 1000\r\n\r\n{");
    BOOST_TEST(response_of(client().request("POST", "/validate", kValid)).at("allowed").as_bool());
    BOOST_TEST(slow->wait_closed_by_server());
}

// With failurePolicy Fail, a webhook that turns connections away blocks
// every write of a tilt.dev object: idle sockets past the limit cost the
// oldest of them their connection, never a request that is sent whole.
BOOST_FIXTURE_TEST_CASE(idle_sockets_past_the_limit_keep_no_request_out, PatientFixture) {
    constexpr int kIdle = 300;
    std::vector<int> idle;
    idle.reserve(kIdle);
    for (int i = 0; i < kIdle; ++i) idle.push_back(idle_connection(service->port()));
    BOOST_TEST(response_of(client().request("POST", "/validate", kValid)).at("allowed").as_bool());
    int oldest_closed = 0;
    for (int i = 0; i < kIdle - 256; ++i) oldest_closed += closed_by_server(idle[i], 5000) ? 1 : 0;
    BOOST_TEST(oldest_closed == kIdle - 256);
    BOOST_TEST(!closed_by_server(idle.back(), 0));  // the newest still wait
    for (const int fd : idle) ::close(fd);
}

BOOST_AUTO_TEST_CASE(a_rebuilt_plugin_answers_the_next_request_a_broken_one_is_refused) {
    install_plugin(LU_TEST_FUTURE_ABI_LIVEUPDATE);
    log.wait_for("refused, the running plugin stays in service");
    BOOST_TEST(response_of(client().request("POST", "/validate", kValid)).at("allowed").as_bool());
    install_plugin(LU_TEST_RESTORE_FAILS_LIVEUPDATE);
    log.wait_for("refused, the running plugin stays in service");
    BOOST_TEST(response_of(client().request("POST", "/validate", kValid)).at("allowed").as_bool());
    install_plugin(LU_TEST_ADMITS_NOTHING_LIVEUPDATE);
    log.wait_for("in service after");
    const json::object refused = response_of(client().request("POST", "/validate", kValid));
    BOOST_TEST(!refused.at("allowed").as_bool());
    BOOST_TEST(std::string(refused.at("status").at("message").as_string()).find("admits-nothing") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(rotated_certificates_serve_new_connections) {
    const std::string before = client().request("GET", "/healthz").server_cert_pem;
    BOOST_TEST(before == certs.serving.cert_pem);
    const ServingCertificates next = make_serving_certificates({"rotated", {}, {"127.0.0.1"}, 1});
    // The key first: until the certificate matches it, the pair in service stays.
    write_file(dir / "tls.key", next.serving.key_pem);
    BOOST_TEST(client().request("GET", "/healthz").server_cert_pem == certs.serving.cert_pem);
    write_file(dir / "tls.crt", next.serving.cert_pem);
    const auto after = HttpsClient(next.ca.cert_pem, service->port()).request("GET", "/healthz");
    BOOST_TEST(after.status == 200u);
    BOOST_TEST(after.server_cert_pem == next.serving.cert_pem);
    // A broken certificate is refused; the new pair stays in service.
    write_file(dir / "tls.crt", "not a certificate");
    BOOST_TEST(HttpsClient(next.ca.cert_pem, service->port()).request("GET", "/healthz").status == 200u);
}

BOOST_AUTO_TEST_SUITE_END()
