#include "tests/soak/faults.hpp"

#include <chrono>
#include <cstdint>
#include <stdexcept>
#include <thread>

namespace lu_soak {

std::string fault_name(Fault fault) {
    switch (fault) {
    case Fault::agent_kill: return "agent-kill";
    case Fault::container_restart: return "container-restart";
    case Fault::container_pause: return "container-pause";
    case Fault::replica_kill: return "replica-kill";
    case Fault::daemon_kill: return "daemon-kill";
    case Fault::plugin_reload: return "plugin-reload";
    case Fault::updater_reload: return "updater-reload";
    case Fault::sparse_verify: return "sparse-verify";
    }
    return "?";
}

std::string inject(Fault fault, FaultTargets targets, Random &random, const std::function<void(std::size_t)> &during) {
    switch (fault) {
    case Fault::agent_kill: {
        const int killed = targets.container.kill_agents();
        return "lu-agent SIGKILLed (" + std::to_string(killed) + " process(es))";
    }
    case Fault::container_restart: targets.container.restart(); return "container restarted (docker restart -t 0)";
    case Fault::container_pause: {
        const std::size_t ops = random.between(1, 4);
        targets.container.pause();
        during(ops);
        targets.container.unpause();
        return "container paused for " + std::to_string(ops) + " operation(s), then unpaused";
    }
    case Fault::replica_kill: {
        // Its initial sync, then the changes of the operations, go to it too:
        // the kill lands in one of those updates or between them. The soak's
        // container must keep getting every change (C07).
        targets.container.start_replica();
        const std::size_t ops = random.between(1, 3);
        during(ops);
        const std::size_t delay = random.between(0, 60);
        std::this_thread::sleep_for(std::chrono::milliseconds(delay));
        targets.container.kill_replica();
        return "a second replica started, " + std::to_string(ops) + " operation(s), killed " + std::to_string(delay) +
               " ms after the last (it stays, exited)";
    }
    case Fault::daemon_kill: {
        const std::size_t ops = random.between(1, 4);
        targets.daemon.kill9();
        during(ops);
        targets.daemon.start();
        return "daemon SIGKILLed, " + std::to_string(ops) + " operation(s) while it was down, started again";
    }
    case Fault::plugin_reload: targets.daemon.reload_liveupdate_plugin(); return "liveupdate plugin hot-reloaded";
    case Fault::updater_reload: targets.daemon.reload_docker_updater(); return "docker updater hot-reloaded";
    case Fault::sparse_verify: {
        targets.container.make_sparse_app_file(kSparseAppFile, std::uint64_t{3} << 40);
        const auto started = std::chrono::steady_clock::now();
        const SoakDaemon::Verified verified = targets.daemon.verify();
        const auto took =
            std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - started);
        // 0 or 1 (a change still on its way); never cut off, never an incomplete digest.
        if (took > std::chrono::seconds(30) || verified.exit_code < 0 || verified.exit_code > 1 ||
            verified.output.find("incomplete") != std::string::npos)
            throw std::runtime_error("a verify over a 3 TB sparse file took " + std::to_string(took.count()) +
                                     " ms, exit " + std::to_string(verified.exit_code) + ":\n" + verified.output);
        return "verify over a 3 TB sparse app file: exit " + std::to_string(verified.exit_code) + " in " +
               std::to_string(took.count()) + " ms";
    }
    }
    return "?";
}

}  // namespace lu_soak
