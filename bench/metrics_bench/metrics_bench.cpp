// metrics_bench: a small save (one file) through a real `lu-host up
// --debounce 0` into a LocalContainer's folder, timed from the write to the
// file in the container, with and without a scraper reading GET /metrics
// every 100 ms (as a Prometheus would, far more often than its default 1 m).
// A shared machine drifts by more than the cost measured, so the two are
// interleaved in many short rounds (which goes first alternates), each round
// gives its own ratio of medians, and the figure is the median of those
// ratios with their spread: a burst of load skews a round or two, not it.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "bench/bench_support/local_files.hpp"
#include "bench/bench_support/stats.hpp"

namespace fs = std::filesystem;
using lu_bench::Clock;
using lu_bench::read_file;
using lu_bench::write_file;

namespace {

constexpr int kDefaultRounds = 200;
constexpr int kDefaultSavesPerHalf = 10;

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

// Reads /metrics every 100 ms while on; one thread for the whole run, so
// turning it on or off costs a round nothing.
class Scraper {
public:
    Scraper(unsigned short port, std::string secret)
        : port_(port), secret_(std::move(secret)), thread_([this] { loop(); }) {}
    Scraper(const Scraper &) = delete;
    Scraper &operator=(const Scraper &) = delete;
    ~Scraper() {
        {
            std::lock_guard lock(mutex_);
            stopping_ = true;
        }
        changed_.notify_all();
        thread_.join();
    }

    void set_on(bool on) {
        {
            std::lock_guard lock(mutex_);
            on_ = on;
        }
        changed_.notify_all();
    }
    std::size_t scrapes() const { return scrapes_; }
    std::size_t last_bytes() const { return last_bytes_; }

private:
    void loop() {
        std::unique_lock lock(mutex_);
        while (!stopping_) {
            if (!on_) {
                changed_.wait(lock);
                continue;
            }
            lock.unlock();
            last_bytes_ = scrape(port_, secret_);
            ++scrapes_;
            lock.lock();
            changed_.wait_for(lock, std::chrono::milliseconds(100), [this] { return stopping_ || !on_; });
        }
    }

    const unsigned short port_;
    const std::string secret_;
    std::mutex mutex_;
    std::condition_variable changed_;
    bool on_ = false;
    bool stopping_ = false;
    std::atomic<std::size_t> scrapes_{0};
    std::atomic<std::size_t> last_bytes_{0};
    std::thread thread_;
};

struct Options {
    int rounds = kDefaultRounds;
    int saves_per_half = kDefaultSavesPerHalf;
};

// The saves of one half round; false when a save never arrived.
bool saves(const fs::path &dir, int &n, int count, std::vector<double> &into) {
    for (int i = 0; i < count; ++i) {
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
        const double t = save(dir, n++);
        if (t < 0) return false;
        into.push_back(t);
    }
    return true;
}

// The ranks around the median of n sorted samples that hold the true median
// 95% of the time (a sign test's interval: no assumption on the shape).
std::pair<double, double> median_interval(std::vector<double> samples) {
    std::sort(samples.begin(), samples.end());
    const double n = static_cast<double>(samples.size());
    const double half_width = 0.98 * std::sqrt(n);
    const auto low = static_cast<std::size_t>(std::max(0.0, std::floor(n / 2 - half_width)));
    const auto high = static_cast<std::size_t>(std::min(n - 1, std::ceil(n / 2 + half_width)));
    return {samples[low], samples[high]};
}

// Rounds of quiet and scraped saves; prints the figure, returns the exit code.
int measure(const fs::path &dir, unsigned short port, const std::string &secret, const Options &options, int &n) {
    std::vector<double> quiet, scraped, ratios;
    Scraper scraper(port, secret);
    for (int round = 0; round < options.rounds; ++round) {
        std::vector<double> round_quiet, round_scraped;
        // Which half goes first alternates, so a trend inside a round reaches both alike.
        for (const bool scraping : {round % 2 == 1, round % 2 == 0}) {
            scraper.set_on(scraping);
            if (!saves(dir, n, options.saves_per_half, scraping ? round_scraped : round_quiet)) {
                scraper.set_on(false);
                std::fprintf(stderr, "metrics_bench: a save never arrived (round %d)\n", round);
                return 1;
            }
        }
        scraper.set_on(false);
        ratios.push_back(lu_bench::median(round_scraped) / std::max(lu_bench::median(round_quiet), 0.001));
        quiet.insert(quiet.end(), round_quiet.begin(), round_quiet.end());
        scraped.insert(scraped.end(), round_scraped.begin(), round_scraped.end());
    }
    const double q = lu_bench::median(quiet), s = lu_bench::median(scraped);
    std::printf(
        "metrics_bench: a one-file save, write -> file in the container (debounce 0), %d rounds of %d + %d "
        "saves\n",
        options.rounds, options.saves_per_half, options.saves_per_half);
    std::printf("  without scraping: median %.2f ms (p90 %.2f)\n", q, lu_bench::percentile(quiet, 0.9));
    std::printf("  scraping /metrics every 100 ms (%zu scrapes, %zu bytes each): median %.2f ms (p90 %.2f)\n",
                scraper.scrapes(), scraper.last_bytes(), s, lu_bench::percentile(scraped, 0.9));
    std::printf("  ratio of all saves' medians %.3f\n", s / std::max(q, 0.001));
    const auto [low, high] = median_interval(ratios);
    std::printf(
        "  ratio per round: median %.3f, 95%% interval of the median %.3f-%.3f (p25 %.3f, p75 %.3f, min %.3f, "
        "max %.3f) (bar: 1.05)\n",
        lu_bench::median(ratios), low, high, lu_bench::percentile(ratios, 0.25), lu_bench::percentile(ratios, 0.75),
        lu_bench::percentile(ratios, 0.0), lu_bench::percentile(ratios, 1.0));
    return 0;
}

// A positive count from argv, or -1.
int count_from(const char *text) {
    char *end = nullptr;
    const long value = std::strtol(text, &end, 10);
    return *end == '\0' && value > 0 && value <= 100000 ? static_cast<int>(value) : -1;
}

}  // namespace

int main(int argc, char **argv) {
    if (argc > 1 && (std::string(argv[1]) == "--help" || std::string(argv[1]) == "-h")) {
        std::printf(
            "Usage: metrics_bench [rounds [saves_per_half]]\n"
            "What GET /metrics costs a small save: a one-file save through `lu-host up --debounce 0` into a\n"
            "LocalContainer, with and without a scraper reading /metrics every 100 ms, interleaved in rounds\n"
            "(default %d rounds of %d saves each way, about 100 s). Prints the median of the rounds' ratios\n"
            "(scraped/quiet) with a 95%% interval for it and the spread; the bar is 1.05.\n"
            "Exit codes: 0 measured, 1 the daemon or a save failed, 2 usage.\n",
            kDefaultRounds, kDefaultSavesPerHalf);
        return 0;
    }
    Options options;
    if (argc > 1) options.rounds = count_from(argv[1]);
    if (argc > 2) options.saves_per_half = count_from(argv[2]);
    if (argc > 3 || options.rounds < 0 || options.saves_per_half < 0) {
        std::fprintf(stderr, "metrics_bench: usage: metrics_bench [rounds [saves_per_half]] (positive counts)\n");
        return 2;
    }
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
        code = measure(dir, port, secret, options, n);
    }
    lu_bench::stop_daemon(pid);
    if (code == 0) fs::remove_all(dir);  // else its daemon.log says why
    return code;
}
