// The faults of the soak, each done for real: lu-agent SIGKILLed in the
// container, the container restarted or paused, a second replica killed
// while the changes it was getting may be in flight, the daemon SIGKILLed and
// started again, the liveupdate plugin or the docker updater hot-reloaded,
// and a verify over the app's 3 TB sparse file in the sync target (it must
// end within seconds, reading none of it).
// Source operations can go on while a fault lasts (paused, daemon down).
#pragma once

#include <functional>
#include <string>

#include "tests/soak/soak_container.hpp"
#include "tests/soak/soak_daemon.hpp"
#include "tests/soak/soak_random.hpp"

namespace lu_soak {

enum class Fault {
    agent_kill,
    container_restart,
    container_pause,
    replica_kill,
    daemon_kill,
    plugin_reload,
    updater_reload,
    sparse_verify
};

inline constexpr Fault kAllFaults[] = {Fault::agent_kill,     Fault::container_restart, Fault::container_pause,
                                       Fault::replica_kill,   Fault::daemon_kill,       Fault::plugin_reload,
                                       Fault::updater_reload, Fault::sparse_verify};

std::string fault_name(Fault fault);

struct FaultTargets {
    SoakContainer &container;
    SoakDaemon &daemon;
};

// Does the fault; `during(n)` makes n source operations while it lasts. What
// happened, e.g. "daemon SIGKILLed, 3 operations while it was down".
std::string inject(Fault fault, FaultTargets targets, Random &random, const std::function<void(std::size_t)> &during);

}  // namespace lu_soak
