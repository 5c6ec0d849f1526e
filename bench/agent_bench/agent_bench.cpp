// A live update of 1 file and of 1,000 files into one lu-busybox container,
// three ways in the same run, rounds interleaved: the docker updater through
// lu-agent (default), the same updater with one exec per update
// ("agent": false), and a raw `docker exec -i <c> tar -C / -x -f -`.
// Prints median and p95 of each and the ratios against the agent (targets:
// 1 file through the agent >= 10x faster than per-update exec; 1,000 files
// no slower than it). Needs `scripts/dockerd.sh start`.
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "bench/bench_support/docker_workload.hpp"
#include "tests/docker/docker_test_support.hpp"

namespace {

using lu_bench::Clock;
using lu_bench::make_workload;
using lu_bench::ms_since;
using lu_bench::percentile;
using lu_bench::raw_docker_exec;
using lu_bench::Workload;

}  // namespace

int main(int argc, char **argv) {
    try {
        const int scale = argc > 1 ? std::max(1, std::atoi(argv[1])) : 1;
        lu_test::TestContainer container("lu-busybox:latest", "sleep 100000");
        lu_test::DockerUpdater agent;
        lu_test::DockerUpdater exec(R"({"agent": false})");
        std::vector<Workload> workloads{make_workload("1 file", 1, 40 * scale),
                                        make_workload("1000 files", 1000, 6 * scale)};

        // First updates: the agent's copy-in and start, the exec path's tar probe.
        auto start = Clock::now();
        auto outcome = agent.update(container.id(), container.name(), workloads[0].update);
        const double agent_first = ms_since(start);
        if (outcome.kind != LU_OUTCOME_OK) throw std::runtime_error("first agent update failed: " + outcome.message);
        if (outcome.logged("lu-agent cannot run")) throw std::runtime_error("the agent did not start: see the log");
        start = Clock::now();
        outcome = exec.update(container.id(), container.name(), workloads[0].update);
        const double exec_first = ms_since(start);
        if (outcome.kind != LU_OUTCOME_OK) throw std::runtime_error("first exec update failed: " + outcome.message);

        std::printf("agent_bench: container %s, engine %s\n", container.name().c_str(),
                    lu_test::sh_ok("docker version -f '{{.Server.Version}}'").c_str());
        std::printf("first update: through lu-agent %.1f ms (copy-in + start), per-update exec %.1f ms (tar probe)\n",
                    agent_first, exec_first);
        std::printf("%-11s %7s | %16s | %16s | %16s | %9s %9s\n", "workload", "archive", "agent med/p95",
                    "exec med/p95", "raw tar med/p95", "exec/agt", "raw/agt");
        for (auto &w : workloads) {
            const std::string file = "/tmp/lut13-agent-bench-" + std::to_string(::getpid()) + ".tar";
            std::ofstream(file, std::ios::binary) << w.archive;
            std::vector<double> times[3];
            for (int round = 0; round < w.rounds; ++round) {
                // Rotate the order so that no side always runs first.
                for (int k = 0; k < 3; ++k) {
                    const int side = (round + k) % 3;
                    const auto t0 = Clock::now();
                    if (side == 2) {
                        times[2].push_back(raw_docker_exec(container.name(), file));
                        continue;
                    }
                    const auto result = (side == 0 ? agent : exec).update(container.id(), container.name(), w.update);
                    times[side].push_back(ms_since(t0));
                    if (result.kind != LU_OUTCOME_OK) throw std::runtime_error("update failed: " + result.message);
                }
            }
            std::remove(file.c_str());
            const double agent_median = percentile(times[0], 0.5);
            std::printf("%-11s %6zuK | %7.1f/%7.1fms | %7.1f/%7.1fms | %7.1f/%7.1fms | %8.1fx %8.1fx\n",
                        w.label.c_str(), w.archive.size() / 1024, agent_median, percentile(times[0], 0.95),
                        percentile(times[1], 0.5), percentile(times[1], 0.95), percentile(times[2], 0.5),
                        percentile(times[2], 0.95), percentile(times[1], 0.5) / agent_median,
                        percentile(times[2], 0.5) / agent_median);
        }
        std::printf("rounds: %d (1 file), %d (1000 files); each update includes the container inspect\n",
                    workloads[0].rounds, workloads[1].rounds);
        return 0;
    } catch (const std::exception &e) {
        std::fprintf(stderr, "agent_bench: %s\n", e.what());
        return 1;
    }
}
