#include "host/up/supervised_containers.hpp"

#include <string>

namespace liveupdate::host::up {

namespace {

const std::string &name_or_id(const updater::ContainerRef &c) { return !c.name.empty() ? c.name : c.id; }

}  // namespace

void SupervisedContainers::restart(const updater::ContainerRef &c) { supervisor_.restart(name_or_id(c)); }

std::optional<updater::ContainerProcess> SupervisedContainers::process(const updater::ContainerRef &c) {
    const std::optional<LocalProcessSpec> spec = supervisor_.spec(name_or_id(c));
    if (!spec) return std::nullopt;
    return updater::ContainerProcess{spec->env, spec->working_dir};
}

}  // namespace liveupdate::host::up
