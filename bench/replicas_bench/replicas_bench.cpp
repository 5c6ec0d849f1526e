// replicas_bench: one edit of one file to 1, 3 and 6 replicas of a Compose
// service through `lu-host up` with default settings, timed from the write to
// the content being in every replica (read through /proc/<pid>/root, so
// polling costs microseconds, not an exec). The reference is our own
// 1-replica time in the same run (issue 23's bar: 6 replicas <= 1.3x one).
// An argument names another lu-host build to measure (its plugins beside it).
// Also printed: the CPU of one edit per replica in each process it crosses
// (lu-host, dockerd, containerd, the containers' shims, their lu-agents),
// the pauses between edits included (a shared engine's other work shows in
// dockerd's) and threads that ended meanwhile not (a build that starts a
// thread per update shows less than it spent).
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "bench/bench_support/local_files.hpp"
#include "bench/bench_support/process_cpu.hpp"
#include "bench/bench_support/stats.hpp"

namespace fs = std::filesystem;
using lu_bench::Clock;
using lu_bench::read_file;
using lu_bench::run;
using lu_bench::wait_for_all;
using lu_bench::write_file;

namespace {

constexpr int kEdits = 20;

// The processes one edit crosses, by what they are: the daemon, the engine,
// and for each container its shim (the parent of its first process) and the
// lu-agents that shim started.
std::vector<std::pair<std::string, std::vector<int>>> processes_of(pid_t daemon, const std::vector<int> &containers) {
    std::vector<int> shims, agents;
    for (const int pid : containers) {
        shims.push_back(lu_bench::parent_of(pid));
        for (const int agent : lu_bench::processes_named("lu-agent", shims.back(), true)) agents.push_back(agent);
    }
    return {{"lu-host", {daemon}},
            {"dockerd", lu_bench::processes_named("dockerd")},
            {"containerd", lu_bench::processes_named("containerd")},
            {"shim", shims},
            {"lu-agent", agents}};
}

// The median of kEdits edits to `replicas` replicas, each edit after a pause.
double measure(const std::string &lu_host, int replicas) {
    char tmpl[] = "/tmp/lu-replicas-bench-XXXXXX";
    const fs::path dir = ::mkdtemp(tmpl);
    const std::string project = "lureplicas" + std::to_string(::getpid()) + "n" + std::to_string(replicas);
    std::vector<std::string> containers;
    pid_t daemon = -1;
    double median = -1;
    std::string error;
    try {
        write_file(dir / "src/index.html", "initial\n");
        write_file(dir / "objects.json", R"({"kind": "List", "items": [
 {"apiVersion": "tilt.dev/v1alpha1", "kind": "FileWatch", "metadata": {"name": "src"}, "spec": {"watchedPaths": ["src"]}},
 {"apiVersion": "tilt.dev/v1alpha1", "kind": "DockerComposeService", "metadata": {"name": "web"},
  "spec": {"service": "web", "project": {"name": ")" +
                                             project + R"(", "projectPath": "."}}},
 {"apiVersion": "tilt.dev/v1alpha1", "kind": "LiveUpdate", "metadata": {"name": "web", "annotations": {"tilt.dev/resource": "web"}},
  "spec": {"basePath": ".", "sources": [{"fileWatch": "src"}], "selector": {"dockerCompose": {"service": "web"}},
           "syncs": [{"localPath": "src", "containerPath": "/app"}], "initialSync": {}}}]})");
        std::vector<fs::path> files;
        std::vector<int> container_pids;
        for (int i = 1; i <= replicas; ++i) {
            const std::string name = project + "-web-" + std::to_string(i);
            std::string command = "docker run -d --network none --name " + name;
            command += " --label com.docker.compose.project=" + project;
            command += " --label com.docker.compose.service=web --label com.docker.compose.oneoff=False";
            command += " --label com.docker.compose.container-number=" + std::to_string(i);
            command += " lu-busybox:latest sleep 100000";
            run(command);
            containers.push_back(name);
            const std::string pid = run("docker inspect -f '{{.State.Pid}}' " + name);
            container_pids.push_back(std::stoi(pid));
            files.push_back("/proc/" + pid + "/root/app/index.html");
        }
        daemon = lu_bench::start_daemon(lu_host, dir);
        if (wait_for_all(files, "initial\n", Clock::now()) < 0)
            throw std::runtime_error("the initial sync never arrived");
        write_file(dir / "src/index.html", "warm-up\n");
        if (wait_for_all(files, "warm-up\n", Clock::now()) < 0) throw std::runtime_error("warm-up save lost");
        const auto processes = processes_of(daemon, container_pids);
        std::vector<double> cpu_before(processes.size());
        for (std::size_t i = 0; i < processes.size(); ++i) cpu_before[i] = lu_bench::cpu_us(processes[i].second);
        std::vector<double> saves;
        for (int edit = 1; edit <= kEdits; ++edit) {
            // A pause between saves, as between a developer's edits: the tree is quiet again.
            std::this_thread::sleep_for(std::chrono::milliseconds(200));
            const std::string content = "edit " + std::to_string(edit) + "\n";
            const auto start = Clock::now();
            write_file(dir / "src/index.html", content);
            const double took = wait_for_all(files, content, start);
            if (took < 0) throw std::runtime_error("edit " + std::to_string(edit) + " never arrived");
            saves.push_back(took);
        }
        median = lu_bench::percentile(saves, 0.5);
        std::printf("  %d replica(s): median %6.1f ms  p95 %6.1f ms\n", replicas, median,
                    lu_bench::percentile(saves, 0.95));
        std::printf("    CPU us per replica per edit (pauses included, live threads):");
        for (std::size_t i = 0; i < processes.size(); ++i)
            std::printf(" %s %.0f", processes[i].first.c_str(),
                        (lu_bench::cpu_us(processes[i].second) - cpu_before[i]) / (kEdits * replicas));
        std::printf("\n");
    } catch (const std::exception &e) {
        error = e.what();
    }
    lu_bench::stop_daemon(daemon);
    for (const std::string &c : containers) std::system(("docker rm -f " + c + " >/dev/null 2>&1").c_str());
    if (!error.empty())
        throw std::runtime_error(std::to_string(replicas) + " replicas: " + error + " (see " +
                                 (dir / "daemon.log").string() + ")");
    fs::remove_all(dir);
    return median;
}

}  // namespace

int main(int argc, char **argv) {
    try {
        std::printf("replicas_bench: one edit -> content in every replica, lu-host up defaults, %d edits\n", kEdits);
        const std::string lu_host = argc > 1 ? argv[1] : LU_HOST_BIN;
        std::map<int, double> medians;
        for (int replicas : {1, 3, 6}) medians[replicas] = measure(lu_host, replicas);
        std::printf("  ratio 3 / 1 replica: %.2fx   6 / 1 replica: %.2fx  (bar: 6 / 1 <= 1.3x)\n",
                    medians[3] / medians[1], medians[6] / medians[1]);
        return 0;
    } catch (const std::exception &e) {
        std::fprintf(stderr, "replicas_bench: %s\n", e.what());
        return 1;
    }
}
