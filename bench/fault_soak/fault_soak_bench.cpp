// The fault soak of issue 19, long: many seeds of many operations
// (tests/soak/soak_run.hpp), then the totals: operations, app writes (those
// in the sync-back folder apart), checks,
// faults by kind, the seeds that broke and how. Exit 1 when one broke.
// Run: scripts/dockerd.sh start && build/bin/fault_soak [--seed N] [--seeds K]
//      [--ops N] [--faults-every N] [--verbose]
#include <iostream>
#include <map>
#include <stdexcept>
#include <vector>

#include "tests/soak/soak_args.hpp"
#include "tests/soak/soak_run.hpp"

namespace {

struct Totals {
    std::size_t ops = 0, app_writes = 0, back_writes = 0, races = 0, checks = 0;
    std::map<std::string, std::size_t> faults;
    std::vector<lu_soak::SoakReport> broken;

    void add(const lu_soak::SoakReport &report) {
        ops += report.ops;
        app_writes += report.app_writes;
        back_writes += report.back_writes;
        races += report.races;
        checks += report.checks;
        for (const auto &[kind, n] : report.faults) faults[kind] += n;
        if (!report.passed()) broken.push_back(report);
    }
    void print(std::size_t seeds) const {
        std::size_t all_faults = 0;
        for (const auto &[kind, n] : faults) all_faults += n;
        std::cout << "\nfault soak: " << seeds << " seed(s), " << ops << " operations, " << app_writes
                  << " app writes, " << back_writes << " app writes in the sync-back folder, " << races
                  << " of them racing a local save, " << all_faults << " faults, " << checks << " checks\n";
        for (const auto &[kind, n] : faults) std::cout << "  " << kind << ": " << n << "\n";
        std::cout << "divergent seeds: " << broken.size() << "\n";
        for (const auto &report : broken)
            std::cout << "  seed " << report.seed << " after " << report.ops << " operations\n";
    }
};

}  // namespace

int main(int argc, char **argv) {
    lu_soak::SoakArgs defaults;
    defaults.seeds = 10;
    defaults.ops = 300;
    defaults.faults_every = 5;
    lu_soak::SoakArgs args;
    try {
        args = lu_soak::parse_soak_args(argc, argv, defaults);
    } catch (const std::invalid_argument &e) {
        std::cerr << "fault_soak: " << e.what() << "\n";
        return 2;
    }
    const std::uint64_t first = args.seed.value_or(lu_soak::seed_from_clock());
    std::cout << "fault soak: seeds " << first << ".." << first + args.seeds - 1 << std::endl;
    Totals totals;
    for (std::size_t i = 0; i < args.seeds; ++i) {
        const lu_soak::SoakOptions options{.seed = first + i,
                                           .ops = args.ops,
                                           .faults_every = args.faults_every,
                                           .binaries = {LU_HOST_BIN, LU_LIVEUPDATE_PLUGIN, LU_DOCKER_UPDATER_PATH},
                                           .without = args.without,
                                           .replay_program = argv[0],
                                           .verbose = args.verbose};
        const lu_soak::SoakReport report = lu_soak::run_soak(options);
        if (!report.passed()) std::cout << report.failure << std::flush;
        totals.add(report);
    }
    totals.print(args.seeds);
    return totals.broken.empty() ? 0 : 1;
}
