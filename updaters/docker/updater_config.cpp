#include "updaters/docker/updater_config.hpp"

#include "updaters/shared/updater_settings.hpp"

namespace liveupdate::docker {

UpdaterConfig parse_updater_config(std::string_view json) {
    const updaters::UpdaterSettings settings(
        json, "docker", {"user", "host", "apiVersion", "timeoutSeconds", "runTimeoutSeconds", "agent", "agentPath"});
    UpdaterConfig config;
    config.user = settings.text("user");
    config.host = settings.text("host");
    config.api_version = settings.text("apiVersion");
    if (config.api_version.starts_with("v")) config.api_version.erase(0, 1);
    config.timeout = settings.seconds("timeoutSeconds", config.timeout);
    config.run_timeout = settings.seconds("runTimeoutSeconds", config.run_timeout);
    config.agent = settings.flag("agent", config.agent);
    config.agent_path = settings.text("agentPath");
    return config;
}

}  // namespace liveupdate::docker
