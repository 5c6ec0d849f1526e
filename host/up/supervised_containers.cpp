#include "host/up/supervised_containers.hpp"

#include <string>

namespace liveupdate::host::up {

namespace {

std::string name_or_id(const lu_container_ref &c) {
    const std::string name = c.container_name != nullptr ? c.container_name : "";
    return !name.empty() ? name : (c.container_id != nullptr ? c.container_id : "");
}

}  // namespace

void SupervisedContainers::restart(const lu_container_ref &c) { supervisor_.restart(name_or_id(c)); }

std::optional<LocalProcess> SupervisedContainers::process(const lu_container_ref &c) {
    const std::optional<LocalProcessSpec> spec = supervisor_.spec(name_or_id(c));
    if (!spec) return std::nullopt;
    return LocalProcess{spec->env, spec->working_dir};
}

}  // namespace liveupdate::host::up
