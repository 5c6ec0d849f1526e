#include "host/compose_discovery/container_presence.hpp"

#include <chrono>
#include <exception>
#include <memory>

#include "common/docker_engine/endpoint.hpp"
#include "common/docker_engine/engine_client.hpp"

namespace liveupdate::host::compose_discovery {

DockerPresenceFn default_docker_presence() {
    // Made on first use: most records are of local containers.
    auto client = std::make_shared<std::unique_ptr<liveupdate::docker_engine::EngineClient>>();
    return [client](const std::string &id) {
        try {
            if (!*client)
                *client = std::make_unique<liveupdate::docker_engine::EngineClient>(
                    liveupdate::docker_engine::resolve_endpoint(""), "", std::chrono::seconds(5));
            const auto response = (*client)->get("/containers/" + id + "/json");
            if (response.status == 404) return ContainerPresence::gone;
            return response.status == 200 ? ContainerPresence::present : ContainerPresence::unknown;
        } catch (const std::exception &) {
            return ContainerPresence::unknown;  // cannot tell: the journal stays
        }
    };
}

}  // namespace liveupdate::host::compose_discovery
