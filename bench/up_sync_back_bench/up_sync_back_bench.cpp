// up_sync_back_bench: issue 35's figures for docker, through `lu-host up`
// with default settings (the docker updater through lu-agent), in one run:
//  - a small file written in the container (from the host through
//    /proc/<pid>/root, so no exec's start is timed) until it is equal in the
//    developer's folder, p50/p95/p99 of 30, against a forward small save (save to
//    content in the container) of the same run;
//  - 10,000 small files generated in the container (an `npm install`-like
//    burst) until all are equal locally, against generating them and then
//    `docker cp C:/path - | tar -x` of the same files;
//  - forward saves while sync back is on against a daemon without it, of a
//    file that does not come back and of one that does (lock.json: with sync
//    back on, each such save is guarded, the agent comparing the container's
//    file with the agreement before it replaces it);
//  - echoes: forward updates of files that came back, over the whole run.
// Each phase (sync back on, off) has its own container, folder and daemon;
// both run at once and their forward saves alternate. Exit codes: 0 done,
// 1 failed, 2 bad arguments.
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <tuple>
#include <utility>
#include <vector>

#include "bench/bench_support/local_files.hpp"
#include "bench/bench_support/process_cpu.hpp"
#include "bench/bench_support/stats.hpp"

namespace fs = std::filesystem;
using lu_bench::Clock;
using lu_bench::percentile;
using lu_bench::read_file;
using lu_bench::run;
using lu_bench::wait_for_all;
using lu_bench::write_file;

namespace {

constexpr int kRounds = 30;
constexpr int kBurstFiles = 10'000;

struct Figures {
    std::vector<double> forward_ms, back_ms;
    std::vector<double> guarded_ms;  // saves of lock.json: guarded with sync back on
    double burst_ms = 0, generate_ms = 0, docker_cp_ms = 0;
    std::size_t echoes = 0;
    double daemon_cpu_ms = 0, container_cpu_ms = 0;  // over the forward saves
};

// Lines of the daemon's log saying the LiveUpdate saw a local change to a
// file that came back (back.txt, gen/...) or to a sync back temporary file.
std::size_t echoes_in(const std::string &log) {
    std::size_t count = 0;
    std::istringstream lines(log);
    for (std::string line; std::getline(lines, line);)
        if (line.find("[web]") != std::string::npos && line.find(" Changed: ") != std::string::npos &&
            (line.find("back.txt") != std::string::npos || line.find("/gen") != std::string::npos ||
             line.find(".lu-sync-back-") != std::string::npos))
            ++count;
    return count;
}

// One daemon, one container: forward saves; with sync back, 30 files back and
// the burst too.
class Phase {
public:
    explicit Phase(bool sync_back) : sync_back_(sync_back) {
        char tmpl[] = "/tmp/lu-sync-back-bench-XXXXXX";
        dir_ = ::mkdtemp(tmpl);
        log_ = dir_.string() + ".log";
        project_ = "lusbbench" + std::to_string(::getpid()) + (sync_back ? "on" : "off");
        container_ = project_ + "-web-1";
    }
    ~Phase() {
        lu_bench::stop_daemon(daemon_);
        std::system(("docker rm -f " + container_ + " >/dev/null 2>&1").c_str());
        if (!measured_) return;  // the folder and log stay to say why
        std::error_code ec;
        fs::remove_all(dir_, ec);
        fs::remove(log_, ec);
    }
    Phase(const Phase &) = delete;
    Phase &operator=(const Phase &) = delete;

    // With sync back: 30 files back, then the burst.
    void measure_back(Figures &f) {
        for (int round = 0; round < kRounds; ++round) f.back_ms.push_back(file_back(round));
        burst(f);
    }

    // Counts the echoes in the daemon's log; the folder goes when the phase does.
    void finish(Figures &f) {
        f.echoes = echoes_in(read_file(log_));
        measured_ = true;
    }

    // Starts the daemon and waits for its initial sync (and, with sync back, its watch).
    void start() {
        write_file(dir_ / "src/index.html", "initial\n");
        const std::string sync_back = sync_back_ ? R"(, "syncBack": ["back.txt", "gen", "lock.json"])" : "";
        write_file(dir_ / "objects.json", R"({"kind": "List", "items": [
 {"apiVersion": "tilt.dev/v1alpha1", "kind": "FileWatch", "metadata": {"name": "src"}, "spec": {"watchedPaths": ["src"]}},
 {"apiVersion": "tilt.dev/v1alpha1", "kind": "DockerComposeService", "metadata": {"name": "web"},
  "spec": {"service": "web", "project": {"name": ")" +
                                              project_ + R"(", "projectPath": "."}}},
 {"apiVersion": "tilt.dev/v1alpha1", "kind": "LiveUpdate", "metadata": {"name": "web", "annotations": {"tilt.dev/resource": "web"}},
  "spec": {"basePath": ".", "sources": [{"fileWatch": "src"}], "selector": {"dockerCompose": {"service": "web"}},
           "syncs": [{"localPath": "src", "containerPath": "/app")" +
                                              sync_back + R"(}], "initialSync": {}}}]})");
        run("docker run -d --network none --name " + container_ + " --label com.docker.compose.project=" + project_ +
            " --label com.docker.compose.service=web --label com.docker.compose.oneoff=False"
            " --label com.docker.compose.container-number=1 lu-busybox:latest sleep 100000");
        container_pid_ = std::stol(run("docker inspect -f '{{.State.Pid}}' " + container_));
        root_ = "/proc/" + std::to_string(container_pid_) + "/root";
        // Synced journals of their own: the machine's default folder may be another daemon's.
        ::setenv("LIVEUPDATE_STATE_DIR", (dir_ / "state").c_str(), 1);
        daemon_ = lu_bench::start_daemon(LU_HOST_BIN, dir_, log_);
        if (wait_for_all({root_ / "app/index.html"}, "initial\n", Clock::now()) < 0)
            throw std::runtime_error("the initial sync never arrived (see " + log_.string() + ")");
        if (sync_back_) {
            const auto start = Clock::now();
            while (read_file(log_).find(": started") == std::string::npos) {
                if (Clock::now() - start > std::chrono::seconds(30))
                    throw std::runtime_error("the sync back never started (see " + log_.string() + ")");
                std::this_thread::sleep_for(std::chrono::milliseconds(10));
            }
        }
        forward_save(-1);  // warms the path up, not measured
        forward_save(-1, "lock.json");
    }

    // A save until its content is in the container, as compose_save_bench.
    double forward_save(int round, const std::string &name = "index.html") {
        std::this_thread::sleep_for(std::chrono::milliseconds(300));  // quiet again, as between edits
        const std::string content = "edit " + std::to_string(round) + "\n";
        write_file(dir_ / "src" / name, content);
        const double took = wait_for_all({root_ / "app" / name}, content, Clock::now());
        if (took < 0) throw std::runtime_error("save " + std::to_string(round) + " never arrived");
        return took;
    }

    // CPU the daemon and the container (lu-agent, watching or writing) used so far.
    std::pair<double, double> cpu_ms() const {
        return {lu_bench::process_cpu_ms(daemon_), lu_bench::cgroup_cpu_ms(container_pid_)};
    }

private:
    double file_back(int round) {
        std::this_thread::sleep_for(std::chrono::milliseconds(300));
        const std::string content = "lockfile " + std::to_string(round) + "\n";
        const auto start = Clock::now();
        write_file(root_ / "app/back.txt", content);
        const double took = wait_for_all({dir_ / "src/back.txt"}, content, start);
        if (took < 0) throw std::runtime_error("round " + std::to_string(round) + ": nothing came back");
        return took;
    }

    static std::string burst_name(int i) {
        return "gen/burst/d" + std::to_string(i / 100) + "/f" + std::to_string(i % 100) + ".js";
    }
    static std::string burst_content(int i) { return "module.exports = " + std::to_string(i) + ";\n"; }

    void burst(Figures &f) {
        const auto start = Clock::now();
        for (int i = 0; i < kBurstFiles; ++i) write_file(root_ / "app" / burst_name(i), burst_content(i));
        f.generate_ms = lu_bench::ms_since(start);
        for (int i = 0; i < kBurstFiles; ++i) {
            const fs::path here = dir_ / "src" / burst_name(i);
            while (read_file(here) != burst_content(i)) {
                if (Clock::now() - start > std::chrono::seconds(120))
                    throw std::runtime_error(here.string() + " never came back (see " + log_.string() + ")");
                std::this_thread::sleep_for(std::chrono::microseconds(500));
            }
        }
        f.burst_ms = lu_bench::ms_since(start);
        const fs::path copy = dir_ / "docker-cp";
        fs::create_directories(copy);
        const auto cp_start = Clock::now();
        run("docker cp " + container_ + ":/app/gen/burst - | tar -x -C " + copy.string());
        f.docker_cp_ms = lu_bench::ms_since(cp_start);
        if (read_file(copy / "burst/d99/f99.js") != burst_content(kBurstFiles - 1))
            throw std::runtime_error("docker cp did not bring the burst");
    }

    bool sync_back_;
    fs::path dir_, log_, root_;
    std::string project_, container_;
    pid_t daemon_ = -1;
    long container_pid_ = 0;
    bool measured_ = false;
};

void print(const char *what, const std::vector<double> &ms) {
    std::printf("  %-42s p50 %7.2f ms  p95 %7.2f ms  p99 %7.2f ms\n", what, percentile(ms, 0.5), percentile(ms, 0.95),
                percentile(ms, 0.99));
}

}  // namespace

int main(int argc, char **argv) {
    if (argc > 1) {
        const std::string arg = argv[1];
        if (arg != "--help" && arg != "-h") {
            std::fprintf(stderr, "up_sync_back_bench: no arguments (see --help)\n");
            return 2;
        }
        std::puts(
            "Usage: up_sync_back_bench\n"
            "Issue 35's figures for docker through lu-host up: a file written in the container until equal\n"
            "locally (p50/p95/p99 of 30) against a forward small save; 10,000 files generated in the container\n"
            "against docker cp | tar -x of them; forward saves with sync back on against off (of a file that\n"
            "does not come back, and of one that does: guarded with sync back on); echoes.\n"
            "Needs a Docker engine (scripts/dockerd.sh start) and lu-busybox:latest.\n"
            "Exit codes: 0 done, 1 failed, 2 bad arguments.");
        return 0;
    }
    try {
        // Both daemons run through the whole run and their saves alternate, each going first in every other
        // round: a machine's load that drifts (other work on its cores) weighs on both sides alike.
        Phase off_phase(false), on_phase(true);
        off_phase.start();
        on_phase.start();
        Figures off, on;
        const auto off_cpu = off_phase.cpu_ms(), on_cpu = on_phase.cpu_ms();
        for (const char *name : {"index.html", "lock.json"})
            for (int round = 0; round < kRounds; ++round) {
                auto &off_ms = name == std::string("index.html") ? off.forward_ms : off.guarded_ms;
                auto &on_ms = name == std::string("index.html") ? on.forward_ms : on.guarded_ms;
                if (round % 2 == 0) off_ms.push_back(off_phase.forward_save(round, name));
                on_ms.push_back(on_phase.forward_save(round, name));
                if (round % 2 == 1) off_ms.push_back(off_phase.forward_save(round, name));
            }
        for (auto [phase, figures, before] :
             {std::tuple{&off_phase, &off, off_cpu}, std::tuple{&on_phase, &on, on_cpu}}) {
            const auto after = phase->cpu_ms();
            figures->daemon_cpu_ms = after.first - before.first;
            figures->container_cpu_ms = after.second - before.second;
        }
        on_phase.measure_back(on);
        off_phase.finish(off);
        on_phase.finish(on);
        const double fwd50 = percentile(on.forward_ms, 0.5), back50 = percentile(on.back_ms, 0.5);
        std::printf("up_sync_back_bench: lu-host up defaults, docker updater through lu-agent, %d rounds\n", kRounds);
        print("container file -> equal locally", on.back_ms);
        print("forward small save, sync back on (ref)", on.forward_ms);
        print("forward small save, sync back off", off.forward_ms);
        print("forward save of lock.json, on (guarded)", on.guarded_ms);
        print("forward save of lock.json, off", off.guarded_ms);
        std::printf("  ratio p50 back / forward                   %.2fx\n", fwd50 > 0 ? back50 / fwd50 : 0.0);
        std::printf("  ratio p50 forward on / off                 %.2fx  (bar <= 1.1x)\n",
                    fwd50 / percentile(off.forward_ms, 0.5));
        std::printf("  ratio p50 lock.json on (guarded) / off     %.2fx  (bar <= 1.1x)\n",
                    percentile(on.guarded_ms, 0.5) / percentile(off.guarded_ms, 0.5));
        // Both daemons share the cores: what one does while idle weighs on the other's saves too. Its own CPU
        // over the saves shows such a cost where the times cannot.
        std::printf(
            "  CPU over the forward saves, daemon: on %.0f ms, off %.0f ms; container: on %.0f ms, off %.0f ms\n",
            on.daemon_cpu_ms, off.daemon_cpu_ms, on.container_cpu_ms, off.container_cpu_ms);
        std::printf("  %d files generated -> all equal locally  %8.1f ms  (generating them: %.1f ms)\n", kBurstFiles,
                    on.burst_ms, on.generate_ms);
        std::printf("  docker cp C:/app/gen/burst - | tar -x      %8.1f ms  (reference, same files)\n",
                    on.docker_cp_ms);
        std::printf("  ratio burst / (generating + docker cp)     %.2fx  (bar <= 1.0x)\n",
                    on.burst_ms / (on.generate_ms + on.docker_cp_ms));
        // Generating is the machine's disk, noisy when shared: the tail after it, against docker cp alone.
        std::printf("  ratio (burst - generating) / docker cp     %.2fx\n",
                    (on.burst_ms - on.generate_ms) / on.docker_cp_ms);
        std::printf("  echoes over the run                        %zu  (bar 0)\n", on.echoes + off.echoes);
        return 0;
    } catch (const std::exception &e) {
        std::fprintf(stderr, "up_sync_back_bench: %s\n", e.what());
        return 1;
    }
}
