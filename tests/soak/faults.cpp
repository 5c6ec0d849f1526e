#include "tests/soak/faults.hpp"

namespace lu_soak {

std::string fault_name(Fault fault) {
    switch (fault) {
    case Fault::agent_kill: return "agent-kill";
    case Fault::container_restart: return "container-restart";
    case Fault::container_pause: return "container-pause";
    case Fault::daemon_kill: return "daemon-kill";
    case Fault::plugin_reload: return "plugin-reload";
    case Fault::updater_reload: return "updater-reload";
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
    case Fault::daemon_kill: {
        const std::size_t ops = random.between(1, 4);
        targets.daemon.kill9();
        during(ops);
        targets.daemon.start();
        return "daemon SIGKILLed, " + std::to_string(ops) + " operation(s) while it was down, started again";
    }
    case Fault::plugin_reload: targets.daemon.reload_liveupdate_plugin(); return "liveupdate plugin hot-reloaded";
    case Fault::updater_reload: targets.daemon.reload_docker_updater(); return "docker updater hot-reloaded";
    }
    return "?";
}

}  // namespace lu_soak
