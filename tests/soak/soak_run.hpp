// One seeded soak run: a container, a daemon, random source operations,
// app writes and faults, and a check of the invariant (tree_check.hpp, plus
// a LiveUpdate that is not stuck) after each fault has settled and at the
// end. The first broken check ends the run with a report naming the seed,
// the check, what happened since the check before, the daemon's status and
// log, and the command line that replays the seed.
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <string>

#include "tests/soak/soak_daemon.hpp"

namespace lu_soak {

struct SoakOptions {
    std::uint64_t seed = 0;
    std::size_t ops = 60;
    std::size_t faults_every = 6;
    DaemonBinaries binaries;
    std::set<std::string> without;  // as SoakArgs::without
    std::string replay_program;     // printed in the replay command line
    bool verbose = false;           // print every event as it happens
};

struct SoakReport {
    std::uint64_t seed = 0;
    std::size_t ops = 0;
    std::size_t app_writes = 0;
    std::size_t back_writes = 0;  // the app's writes, rewrites and deletes in the sync-back folder
    std::size_t races = 0;        // app rewrites racing a local save of the same file
    std::size_t checks = 0;
    std::map<std::string, std::size_t> faults;  // by kind
    std::string failure;                        // empty when every check held
    bool passed() const { return failure.empty(); }
};

SoakReport run_soak(const SoakOptions &options);

std::string replay_command(const SoakOptions &options);

}  // namespace lu_soak
