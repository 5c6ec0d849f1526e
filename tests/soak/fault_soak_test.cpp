// The fault soak of issue 19, short: two seeds of 60 random source operations
// against a real busybox container through `lu-host up`, the docker updater
// and lu-agent, with a fault every 6 operations and app writes into the sync
// target, some into gen/ that syncs back, checked after each fault has
// settled (tests/soak/soak_run.hpp).
// Replay a seed with `fault_soak_test -- --seed N` (also --ops, --faults-every,
// --seeds, --verbose); bench/fault_soak runs it long.
#define BOOST_TEST_MODULE fault_soak
#include <boost/test/unit_test.hpp>

#include <cstdlib>
#include <iostream>

#include "tests/docker/docker_test_support.hpp"
#include "tests/soak/soak_args.hpp"
#include "tests/soak/soak_run.hpp"

namespace {

void skip_without_the_image() {
    if (lu_test::sh("docker image inspect lu-busybox:latest >/dev/null 2>&1").exit_code == 0) return;
    std::cout << "fault soak: skipped, no docker engine with the image lu-busybox:latest" << std::endl;
    std::exit(77);
}

}  // namespace

BOOST_AUTO_TEST_CASE(random_operations_and_faults_leave_the_container_equal_to_the_source) {
    skip_without_the_image();
    auto &suite = boost::unit_test::framework::master_test_suite();
    lu_soak::SoakArgs defaults;
    defaults.seeds = 2;
    const lu_soak::SoakArgs args = lu_soak::parse_soak_args(suite.argc, suite.argv, defaults);
    const std::uint64_t first = args.seed.value_or(lu_soak::seed_from_clock());
    for (std::size_t i = 0; i < args.seeds; ++i) {
        lu_soak::SoakOptions options{.seed = first + i,
                                     .ops = args.ops,
                                     .faults_every = args.faults_every,
                                     .binaries = {LU_HOST_BIN, LU_LIVEUPDATE_PLUGIN, LU_DOCKER_UPDATER_PATH},
                                     .without = args.without,
                                     .replay_program = std::string(suite.argv[0]) + " --",
                                     .verbose = args.verbose};
        const lu_soak::SoakReport report = lu_soak::run_soak(options);
        BOOST_TEST(report.passed(), report.failure);
    }
}
