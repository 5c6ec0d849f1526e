// The host extension LU_HOST_LOCAL_CONTAINERS_ID (host/core/host_services.hpp),
// backed by the daemon's LocalContainer supervisor.
#pragma once

#include <optional>

#include "host/core/host_services.hpp"
#include "host/up/local_container_supervisor.hpp"

namespace liveupdate::host::up {

class SupervisedContainers : public LocalContainerService {
public:
    explicit SupervisedContainers(LocalContainerSupervisor &s) : supervisor_(s) {}
    void restart(const updater::ContainerRef &c) override;
    std::optional<updater::ContainerProcess> process(const updater::ContainerRef &c) override;

private:
    LocalContainerSupervisor &supervisor_;
};

}  // namespace liveupdate::host::up
