// One live update of 1 file and of 1,000 files through the docker updater
// plugin, against `docker exec -i <c> tar -C / -x -f -` of the same archive,
// in the same run on the same container. Prints medians and the ratio
// updater / raw (target: <= 1.2). Needs a running engine and the images of
// scripts/dockerd.sh (run `scripts/dockerd.sh start` first).
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
using lu_bench::raw_docker_exec;
using lu_bench::Workload;

}  // namespace

int main(int argc, char **argv) {
    try {
        const int scale = argc > 1 ? std::max(1, std::atoi(argv[1])) : 1;
        lu_test::TestContainer container("lu-busybox:latest", "sleep 100000");
        lu_test::DockerUpdater updater;
        std::vector<Workload> workloads{make_workload("1 file", 1, 15 * scale),
                                        make_workload("1000 files", 1000, 7 * scale)};

        // First update: includes the one-time probe for tar in this container.
        const auto first_start = Clock::now();
        const auto first = updater.update(container.id(), container.name(), workloads[0].update);
        const double first_ms = ms_since(first_start);
        if (first.kind != LU_OUTCOME_OK) throw std::runtime_error("first update failed: " + first.message);

        std::printf("docker_bench: container %s, %s\n", container.name().c_str(),
                    lu_test::sh_ok("docker version -f '{{.Server.Version}}'").c_str());
        std::printf("first update (with the tar probe): %.1f ms\n", first_ms);
        std::printf("%-12s %8s %10s %10s %8s\n", "workload", "archive", "updater", "raw exec", "ratio");
        bool within_target = true;
        for (auto &w : workloads) {
            const std::string file = "/tmp/lu-docker-bench-" + std::to_string(::getpid()) + ".tar";
            std::ofstream(file, std::ios::binary) << w.archive;
            std::vector<double> ours, raw;
            for (int round = 0; round < w.rounds; ++round) {
                // Alternate the order so that neither side always runs on a warm cache.
                for (int side = 0; side < 2; ++side) {
                    if ((round + side) % 2 == 0) {
                        const auto start = Clock::now();
                        const auto outcome = updater.update(container.id(), container.name(), w.update);
                        ours.push_back(ms_since(start));
                        if (outcome.kind != LU_OUTCOME_OK)
                            throw std::runtime_error("update failed: " + outcome.message);
                    } else {
                        raw.push_back(raw_docker_exec(container.name(), file));
                    }
                }
            }
            std::remove(file.c_str());
            const double ratio = lu_bench::median(ours) / lu_bench::median(raw);
            within_target = within_target && ratio <= 1.2;
            std::printf("%-12s %7zuK %8.1fms %8.1fms %8.2f\n", w.label.c_str(), w.archive.size() / 1024,
                        lu_bench::median(ours), lu_bench::median(raw), ratio);
        }
        std::printf("median of %d/%d rounds; ratio = updater / raw docker exec; target <= 1.2: %s\n",
                    workloads[0].rounds, workloads[1].rounds, within_target ? "met" : "NOT met");
        return 0;
    } catch (const std::exception &e) {
        std::fprintf(stderr, "docker_bench: %s\n", e.what());
        return 1;
    }
}
