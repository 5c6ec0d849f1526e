// A docker container's presence as the engine tells it, for the pruning of
// synced journals (host/core/synced_pruning).
#pragma once

#include "host/core/synced_pruning.hpp"

namespace liveupdate::host::compose_discovery {

// The engine at DOCKER_HOST (else the default socket), as the docker updater
// with no "host" setting reaches it: 404 is gone, 200 present, anything else
// (unreachable, an error) unknown.
DockerPresenceFn default_docker_presence();

}  // namespace liveupdate::host::compose_discovery
