// bench/webhook: admission latency of `lu-host webhook` alone (the server in
// this process, the real plugin, AdmissionReviews over kept-alive TLS
// connections from 1, 8 and 64 clients), against GET /healthz on the same
// server in the same run (TLS and HTTP without judging); then, when a
// cluster is given, the API server's latency for a LiveUpdate with and
// without the webhook installed: a server-side dry-run create (API only)
// and a `kubectl apply` (kubectl's own start included), same run.
// POST /mutate of an opted-in pod is measured against /validate, the two
// interleaved on each connection so that both meet the same load (on a
// shared machine a sequential pair compares two moments of its load more
// than the two handlers), and each handler's own time (from the webhook's
// metrics: parse, work, answer; no TLS, no HTTP) beside them.
// Run: build/bin/webhook_bench [requests-per-client] [--cluster KUBECTL]
#include <atomic>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <thread>
#include <vector>

#include <sys/wait.h>

#include <boost/asio.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/ssl.hpp>

#include "bench/bench_support/stats.hpp"
#include "common/kube/api_client.hpp"
#include "common/kube/kubeconfig.hpp"
#include "host/core/host_metrics.hpp"
#include "host/webhook/certificates.hpp"
#include "host/webhook/webhook_install.hpp"
#include "host/webhook/webhook_service.hpp"

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
namespace ssl = asio::ssl;
namespace fs = std::filesystem;
using namespace liveupdate::host::webhook;
using lu_bench::Clock;

namespace {

const std::string kReview = R"({"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":"u",
  "kind":{"group":"tilt.dev","version":"v1alpha1","kind":"LiveUpdate"},"operation":"CREATE",
  "object":{"apiVersion":"tilt.dev/v1alpha1","kind":"LiveUpdate","metadata":{"name":"web"},
  "spec":{"basePath":".","selector":{"kubernetes":{"discoveryName":"web","containerName":"app"}},
  "syncs":[{"localPath":"src","containerPath":"/app/src"},{"localPath":"static","containerPath":"/app/static"}],
  "execs":[{"args":["make","reload"],"triggerPaths":["src"]}]}}}})";

// A pod of an opted-in namespace with restart: process: the whole patch is made.
const std::string kPodReview = R"({"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":"u",
  "kind":{"group":"","version":"v1","kind":"Pod"},"namespace":"apps","operation":"CREATE",
  "object":{"apiVersion":"v1","kind":"Pod","metadata":{"name":"web","labels":{"app":"web"},
  "annotations":{"liveupdate.dev/restart":"process"}},"spec":{"containers":[
  {"name":"app","image":"web:1","command":["/app/server"],"args":["--port","8080"],
   "volumeMounts":[{"name":"cfg","mountPath":"/cfg"}]},{"name":"proxy","image":"proxy:1"}],
  "volumes":[{"name":"cfg","configMap":{"name":"web"}}]}}}})";

// One kept-alive TLS connection, as the API server keeps them (the
// certificate is not checked: the handshake's cost is the same).
class Connection {
public:
    explicit Connection(unsigned short port) : stream_(io_, ctx_) {
        beast::get_lowest_layer(stream_).connect({asio::ip::make_address("127.0.0.1"), port});
        stream_.handshake(ssl::stream_base::client);
    }
    double request(http::verb verb, const char *target, const std::string &body) {
        http::request<http::string_body> req(verb, target, 11);
        req.set(http::field::host, "127.0.0.1");
        req.keep_alive(true);
        req.body() = body;
        req.prepare_payload();
        const auto start = Clock::now();
        http::write(stream_, req);
        http::response<http::string_body> res;
        http::read(stream_, buffer_, res);
        const double ms = lu_bench::ms_since(start);
        if (res.result_int() != 200) throw std::runtime_error("HTTP " + std::to_string(res.result_int()));
        return ms;
    }

private:
    asio::io_context io_;
    ssl::context ctx_{ssl::context::tls_client};
    beast::ssl_stream<beast::tcp_stream> stream_;
    beast::flat_buffer buffer_;
};

struct Figures {
    double p50 = 0, p99 = 0, per_second = 0;
};

struct Target {
    http::verb verb;
    const char *path;
    const std::string &body;
};
const std::string kNoBody;
const Target kHealthz{http::verb::get, "/healthz", kNoBody};
const Target kValidate{http::verb::post, "/validate", kReview};
const Target kMutate{http::verb::post, "/mutate", kPodReview};

// Each client sends `requests` of each target on its own kept-alive
// connection, going round the targets; one Figures per target (its
// per_second counts its own requests over the whole run).
std::vector<Figures> run_clients(unsigned clients, int requests, unsigned short port,
                                 const std::vector<const Target *> &targets) {
    std::vector<std::vector<std::vector<double>>> samples(clients, std::vector<std::vector<double>>(targets.size()));
    std::vector<std::thread> threads;
    const auto start = Clock::now();
    for (unsigned c = 0; c < clients; ++c)
        threads.emplace_back([&, c] {
            Connection connection(port);
            for (int i = 0; i < requests; ++i)
                for (std::size_t t = 0; t < targets.size(); ++t)
                    samples[c][t].push_back(connection.request(targets[t]->verb, targets[t]->path, targets[t]->body));
        });
    for (auto &t : threads) t.join();
    const double seconds = lu_bench::ms_since(start) / 1000.0;
    std::vector<Figures> figures;
    for (std::size_t t = 0; t < targets.size(); ++t) {
        std::vector<double> all;
        for (auto &s : samples) all.insert(all.end(), s[t].begin(), s[t].end());
        figures.push_back(Figures{lu_bench::percentile(all, 0.5), lu_bench::percentile(all, 0.99),
                                  static_cast<double>(all.size()) / seconds});
    }
    return figures;
}

Figures run_clients(unsigned clients, int requests, unsigned short port, const Target &target) {
    return run_clients(clients, requests, port, {&target}).front();
}

// The value of the sample named `name` (with its labels) in a Prometheus
// text, 0 when there is none.
double metric_sample(const std::string &text, const std::string &name) {
    const auto at = text.find("\n" + name + " ");
    return at == std::string::npos ? 0.0 : std::stod(text.substr(at + name.size() + 2));
}

// The webhook's own time for its reviews so far, by webhook (validate, mutate).
struct HandlerTotals {
    double seconds = 0, count = 0;
};
HandlerTotals handler_totals(const std::string &webhook) {
    const std::string text = liveupdate::host::metrics::webhook_metrics_text();
    const std::string labels = "{webhook=\"" + webhook + "\"}";
    return {metric_sample(text, "lu_admission_duration_seconds_sum" + labels),
            metric_sample(text, "lu_admission_duration_seconds_count" + labels)};
}

// Microseconds per review between two totals.
double handler_us(const HandlerTotals &before, const HandlerTotals &after) {
    const double count = after.count - before.count;
    return count > 0 ? (after.seconds - before.seconds) / count * 1e6 : 0.0;
}

int run(const std::vector<std::string> &argv) {
    std::vector<char *> args;
    args.reserve(argv.size() + 1);
    std::vector<std::string> copy = argv;
    for (auto &a : copy) args.push_back(a.data());
    args.push_back(nullptr);
    std::fflush(stdout);  // else the child's freopen writes our buffered lines again
    const pid_t pid = fork();
    if (pid == 0) {
        std::freopen("/dev/null", "w", stdout);
        std::freopen("/dev/null", "w", stderr);
        execvp(args[0], args.data());
        _exit(127);
    }
    int status = 0;
    waitpid(pid, &status, 0);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}

// A LiveUpdate's server-side dry-run create and a kubectl apply (a changed
// annotation each round, so that every apply reaches the API server).
std::pair<std::vector<double>, std::vector<double>> cluster_round(liveupdate::kube::ApiClient &api,
                                                                  const std::string &kubectl, const fs::path &dir,
                                                                  int rounds) {
    std::vector<double> dry, apply;
    const std::string object = R"({"apiVersion":"tilt.dev/v1alpha1","kind":"LiveUpdate","metadata":{"name":"bench"},
      "spec":{"basePath":".","selector":{"kubernetes":{"discoveryName":"web","containerName":"app"}},
      "syncs":[{"localPath":"src","containerPath":"/app/src"}]}})";
    for (int i = 0; i < rounds; ++i) {
        auto start = Clock::now();
        const auto answer = api.request("POST", "/apis/tilt.dev/v1alpha1/liveupdates?dryRun=All", object);
        dry.push_back(lu_bench::ms_since(start));
        if (answer.status / 100 != 2) throw std::runtime_error("dry-run create: HTTP " + std::to_string(answer.status));
        std::ofstream(dir / "bench.yaml")
            << "apiVersion: tilt.dev/v1alpha1\nkind: LiveUpdate\nmetadata:\n"
            << "  name: bench-apply\n  annotations: {round: \"" << i << "\"}\n"
            << "spec:\n  basePath: .\n  selector: {kubernetes: {discoveryName: web, "
               "containerName: app}}\n  syncs:\n  - {localPath: src, containerPath: /app}\n";
        start = Clock::now();
        if (run({kubectl, "apply", "-f", (dir / "bench.yaml").string()}) != 0)
            throw std::runtime_error("kubectl apply failed");
        apply.push_back(lu_bench::ms_since(start));
    }
    return {dry, apply};
}

}  // namespace

int run_bench(int argc, char **argv) {
    int requests = 500;
    std::string kubectl;
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        if (arg == "--cluster" && i + 1 < argc) {
            kubectl = argv[++i];
        } else {
            requests = std::stoi(arg);
        }
    }
    const fs::path dir = fs::temp_directory_path() / ("lu-webhook-bench-" + std::to_string(::getpid()));
    fs::create_directories(dir);
    const ServingCertificates certs = make_serving_certificates({"bench", {}, {"127.0.0.1"}, 1});
    std::ofstream(dir / "tls.crt") << certs.serving.cert_pem;
    std::ofstream(dir / "tls.key") << certs.serving.key_pem;
    ServiceOptions options;
    options.server.address = "127.0.0.1";
    options.server.port = kubectl.empty() ? 0 : 19445;
    options.cert = dir / "tls.crt";
    options.key = dir / "tls.key";
    options.plugin = LU_BENCH_LIVEUPDATE_PLUGIN;
    options.probe_plugins = false;
    options.inject.agent_image = "localhost/lu-agent:dev";
    WebhookService service(options);
    std::printf("webhook alone: %d requests per client, kept-alive TLS, plugin %s\n", requests,
                LU_BENCH_LIVEUPDATE_PLUGIN);
    std::printf("%8s %12s %12s %12s %14s %14s %10s\n", "clients", "p50 ms", "p99 ms", "req/s", "healthz p50",
                "healthz p99", "p50 ratio");
    for (unsigned clients : {1u, 8u, 64u}) {
        const Figures reference = run_clients(clients, requests, service.port(), kHealthz);
        const Figures validate = run_clients(clients, requests, service.port(), kValidate);
        std::printf("%8u %12.3f %12.3f %12.0f %14.3f %14.3f %10.2f\n", clients, validate.p50, validate.p99,
                    validate.per_second, reference.p50, reference.p99, validate.p50 / reference.p50);
    }
    std::printf("\n/mutate (a pod injected, its command wrapped) against /validate, interleaved on each connection:\n");
    std::printf("%8s %12s %12s %12s %12s %10s %10s %14s %14s\n", "clients", "mutate p50", "mutate p99", "valid. p50",
                "valid. p99", "p50 ratio", "p99 ratio", "mutate own us", "valid. own us");
    for (unsigned clients : {1u, 16u}) {
        const HandlerTotals validate_before = handler_totals("validate"), mutate_before = handler_totals("mutate");
        const auto figures = run_clients(clients, requests, service.port(), {&kValidate, &kMutate});
        const Figures &validate = figures[0], &mutate = figures[1];
        std::printf("%8u %12.3f %12.3f %12.3f %12.3f %10.2f %10.2f %14.1f %14.1f\n", clients, mutate.p50, mutate.p99,
                    validate.p50, validate.p99, mutate.p50 / validate.p50, mutate.p99 / validate.p99,
                    handler_us(mutate_before, handler_totals("mutate")),
                    handler_us(validate_before, handler_totals("validate")));
    }
    if (kubectl.empty()) {
        fs::remove_all(dir);
        return 0;
    }
    liveupdate::kube::ApiClient api(liveupdate::kube::load_client_config({}));
    const int rounds = 20;
    std::ostringstream ignored;
    uninstall_webhook(api, std::nullopt, ignored);
    const auto without = cluster_round(api, kubectl, dir, rounds);
    install_webhook(api, {url_target("https://127.0.0.1:19445/validate"), std::nullopt, dir / "installed", 1}, ignored);
    // The installed pair is another one: serve it (rotation, as in service).
    fs::copy_file(dir / "installed" / "tls.key", dir / "tls.key", fs::copy_options::overwrite_existing);
    fs::copy_file(dir / "installed" / "tls.crt", dir / "tls.crt", fs::copy_options::overwrite_existing);
    const auto with = cluster_round(api, kubectl, dir, rounds);
    uninstall_webhook(api, std::nullopt, ignored);
    run({kubectl, "delete", "liveupdate", "bench-apply", "--ignore-not-found"});
    std::printf("\nAPI server, %d rounds each, same run:    p50 ms    p99 ms\n", rounds);
    std::printf("  dry-run create, no webhook       %9.2f %9.2f\n", lu_bench::median(without.first),
                lu_bench::percentile(without.first, 0.99));
    std::printf("  dry-run create, webhook          %9.2f %9.2f\n", lu_bench::median(with.first),
                lu_bench::percentile(with.first, 0.99));
    std::printf("  kubectl apply, no webhook        %9.2f %9.2f\n", lu_bench::median(without.second),
                lu_bench::percentile(without.second, 0.99));
    std::printf("  kubectl apply, webhook           %9.2f %9.2f\n", lu_bench::median(with.second),
                lu_bench::percentile(with.second, 0.99));
    fs::remove_all(dir);
    return 0;
}

int main(int argc, char **argv) {
    try {
        return run_bench(argc, argv);
    } catch (const std::exception &e) {
        std::fprintf(stderr, "webhook_bench: %s\n", e.what());
        return 1;
    }
}
