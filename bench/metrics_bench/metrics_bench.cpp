// metrics_bench: a small save (one file) through a real `lu-host up
// --debounce 0` into a LocalContainer's folder, timed from the write to the
// file in the container, with and without a scraper reading GET /metrics
// every 100 ms (as a Prometheus would, far more often than its default 1 m).
// The two are interleaved in rounds in the same run, so drift of the
// machine reaches both alike; the ratio of their medians is the figure.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include "bench/bench_support/local_files.hpp"
#include "bench/bench_support/stats.hpp"

namespace fs = std::filesystem;
using lu_bench::Clock;
using lu_bench::read_file;
using lu_bench::write_file;

namespace {

constexpr int kRounds = 10;
constexpr int kSavesPerRound = 20;

// One save: a file written, waited for in the container; milliseconds, or -1 after 30 s.
double save(const fs::path &dir, int n) {
    const std::string want = "save " + std::to_string(n) + "\n";
    const auto start = Clock::now();
    write_file(dir / "src/a.txt", want);
    while (read_file(dir / "root/app/a.txt") != want) {
        if (Clock::now() - start > std::chrono::seconds(30)) return -1;
        std::this_thread::sleep_for(std::chrono::microseconds(200));
    }
    return lu_bench::ms_since(start);
}

// GET /metrics with the secret; the answer's size, 0 when it failed.
std::size_t scrape(unsigned short port, const std::string &secret) {
    const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) return 0;
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_port = htons(port);
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    std::size_t got = 0;
    if (::connect(fd, reinterpret_cast<sockaddr *>(&address), sizeof address) == 0) {
        const std::string request = "GET /metrics HTTP/1.1\r\nHost: 127.0.0.1:" + std::to_string(port) +
                                    "\r\nAuthorization: Bearer " + secret + "\r\nConnection: close\r\n\r\n";
        if (::write(fd, request.data(), request.size()) == static_cast<ssize_t>(request.size())) {
            char buffer[16384];
            for (ssize_t n; (n = ::read(fd, buffer, sizeof buffer)) > 0;) got += static_cast<std::size_t>(n);
        }
    }
    ::close(fd);
    return got;
}

}  // namespace

int main() {
    char tmpl[] = "/tmp/lu-metrics-bench-XXXXXX";
    const fs::path dir = ::mkdtemp(tmpl);
    fs::create_directories(dir / "src");
    write_file(dir / "objects.json", lu_bench::kLocalContainerObjects);
    pid_t pid = -1;
    try {
        pid = lu_bench::start_daemon(LU_HOST_BIN, dir, {}, {"--debounce", "0", "--web-port", "0"});
    } catch (const std::exception &e) {
        std::fprintf(stderr, "metrics_bench: %s\n", e.what());
        return 1;
    }
    // The status page's port and secret, from "up: status page http://127.0.0.1:PORT/?token=SECRET",
    // printed before it watches (saves count from then).
    unsigned short port = 0;
    std::string secret;
    if (lu_bench::wait_until_watching(dir / "daemon.log")) {
        const std::string log = read_file(dir / "daemon.log");
        const auto at = log.find("up: status page http://127.0.0.1:");
        const auto token = log.find("?token=", at);
        if (at != std::string::npos && token != std::string::npos) {
            port = static_cast<unsigned short>(std::stoi(log.substr(at + 33)));
            secret = log.substr(token + 7, log.find_first_of(" \n", token) - token - 7);
        }
    }
    int code = 0;
    int n = 0;
    if (secret.empty() || save(dir, n++) < 0 || scrape(port, secret) == 0) {
        std::fprintf(stderr, "metrics_bench: the daemon did not start, sync or serve /metrics (see %s)\n",
                     (dir / "daemon.log").c_str());
        code = 1;
    } else {
        std::vector<double> quiet, scraped;
        std::size_t scrapes = 0, scrape_bytes = 0;
        for (int round = 0; round < kRounds && code == 0; ++round) {
            for (const bool scraping : {false, true}) {
                std::atomic<bool> stop{false};
                std::thread scraper;
                if (scraping)
                    scraper = std::thread([&] {
                        while (!stop) {
                            scrape_bytes = scrape(port, secret);
                            ++scrapes;
                            std::this_thread::sleep_for(std::chrono::milliseconds(100));
                        }
                    });
                for (int i = 0; i < kSavesPerRound; ++i) {
                    std::this_thread::sleep_for(std::chrono::milliseconds(20));
                    const double t = save(dir, n++);
                    if (t < 0) code = 1;
                    (scraping ? scraped : quiet).push_back(t);
                }
                stop = true;
                if (scraper.joinable()) scraper.join();
            }
        }
        if (code != 0) {
            std::fprintf(stderr, "metrics_bench: a save never arrived\n");
        } else {
            const double q = lu_bench::median(quiet), s = lu_bench::median(scraped);
            std::printf("metrics_bench: a one-file save, write → file in the container (debounce 0), %zu saves each\n",
                        quiet.size());
            std::printf("  without scraping: median %.2f ms (p90 %.2f)\n", q, lu_bench::percentile(quiet, 0.9));
            std::printf("  scraping /metrics every 100 ms (%zu scrapes, %zu bytes each): median %.2f ms (p90 %.2f)\n",
                        scrapes, scrape_bytes, s, lu_bench::percentile(scraped, 0.9));
            std::printf("  ratio %.3f (bar: 1.05)\n", s / std::max(q, 0.001));
        }
    }
    lu_bench::stop_daemon(pid);
    if (code == 0) fs::remove_all(dir);  // else its daemon.log says why
    return code;
}
