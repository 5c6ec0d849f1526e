// up_bench: latency from writing files in a watched folder to those files
// being in a LocalContainer's folder, through a real `lu-host up --debounce 0`.
// The reference measured in the same run is a plain copy of the same files
// (write each, read it back, write it to the destination), so the ratio says
// what the whole pipeline (inotify, plugin, archive, unpack) costs on top of
// moving the bytes.

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <filesystem>
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

double ms(Clock::duration d) { return std::chrono::duration<double, std::milli>(d).count(); }

struct Trip {
    double total = -1;       // first write → all files in dest
    double after_last = -1;  // last write → all files in dest
};

// Writes n files (content unique to rep) and waits until all are in dest.
Trip round_trip(const fs::path &src, const fs::path &dest, int n, int rep) {
    const auto start = Clock::now();
    for (int i = 0; i < n; ++i)
        write_file(src / ("f" + std::to_string(i) + ".txt"),
                   "rep " + std::to_string(rep) + " file " + std::to_string(i) + "\n");
    const auto written = Clock::now();
    int confirmed = 0;
    while (confirmed < n) {
        const std::string want = "rep " + std::to_string(rep) + " file " + std::to_string(confirmed) + "\n";
        if (read_file(dest / ("f" + std::to_string(confirmed) + ".txt")) == want) {
            ++confirmed;
            continue;
        }
        if (Clock::now() - start > std::chrono::seconds(60)) return Trip{};
        std::this_thread::sleep_for(std::chrono::microseconds(200));
    }
    const auto done = Clock::now();
    return Trip{ms(done - start), ms(done - written)};
}

double plain_copy(const fs::path &src, const fs::path &scratch, int n, int rep) {
    const auto start = Clock::now();
    for (int i = 0; i < n; ++i) {
        const std::string name = "f" + std::to_string(i) + ".txt";
        const std::string content = "rep " + std::to_string(rep) + " file " + std::to_string(i) + "\n";
        write_file(src / name, content);
        write_file(scratch / name, read_file(src / name));
    }
    return ms(Clock::now() - start);
}

}  // namespace

int main() {
    char tmpl[] = "/tmp/lu-up-bench-XXXXXX";
    const fs::path dir = ::mkdtemp(tmpl);
    fs::create_directories(dir / "src");
    fs::create_directories(dir / "plain/src");
    fs::create_directories(dir / "plain/dest");
    write_file(dir / "objects.json", lu_bench::kLocalContainerObjects);
    pid_t pid = -1;
    try {
        pid = lu_bench::start_daemon(LU_HOST_BIN, dir, {}, {"--debounce", "0"});
    } catch (const std::exception &e) {
        std::fprintf(stderr, "up_bench: %s\n", e.what());
        return 1;
    }
    // Ready once it says so, and once a first file made it through.
    lu_bench::wait_until_watching(dir / "daemon.log");
    const double warmup = round_trip(dir / "src", dir / "root/app", 1, 0).total;

    int code = 0;
    if (warmup < 0) {
        std::fprintf(stderr, "up_bench: the daemon never synced (see %s)\n", (dir / "daemon.log").c_str());
        code = 1;
    } else {
        std::printf("up_bench: end-to-end latency, write → file in the container folder (debounce 0)\n");
        for (const auto &[n, reps] : std::vector<std::pair<int, int>>{{1, 30}, {1000, 5}}) {
            std::vector<double> e2e, tail, plain;
            for (int r = 1; r <= reps; ++r) {
                // Each measured alone: the daemon may still be handling the tail of the last round.
                std::this_thread::sleep_for(std::chrono::milliseconds(n > 1 ? 3000 : 100));
                plain.push_back(plain_copy(dir / "plain/src", dir / "plain/dest", n, r));
                const Trip trip = round_trip(dir / "src", dir / "root/app", n, r);
                e2e.push_back(trip.total);
                tail.push_back(trip.after_last);
            }
            if (*std::min_element(e2e.begin(), e2e.end()) < 0) {
                std::fprintf(stderr, "up_bench: %d file(s) never arrived\n", n);
                code = 1;
                break;
            }
            const double m = lu_bench::median(e2e), p = lu_bench::median(plain);
            std::printf(
                "  %5d file(s): first write → all in container: median %8.2f ms (min %.2f, max %.2f); "
                "last write → all in container: median %.2f ms | plain copy of the same files %.2f ms | "
                "ratio %.2f\n",
                n, m, *std::min_element(e2e.begin(), e2e.end()), *std::max_element(e2e.begin(), e2e.end()),
                lu_bench::median(tail), p, m / std::max(p, 0.001));
        }
    }
    lu_bench::stop_daemon(pid);
    fs::remove_all(dir);
    return code;
}
