#include "common/sync_back/sync_back_mapping.hpp"

#include "common/agent_protocol/temporary_names.hpp"
#include "common/paths.hpp"

namespace liveupdate::sync_back {

SyncBackMapping::SyncBackMapping(std::string local_path, std::string container_path,
                                 const std::vector<std::string> &patterns)
    : local_path_(std::move(local_path)),
      container_path_(std::move(container_path)),
      patterns_(container_path_, patterns) {}

std::optional<std::string> SyncBackMapping::wanted(std::string_view container_file) const {
    std::optional<std::string> name = common::child_path(container_path_, std::string(container_file));
    if (!name || name->empty() || *name == ".") return std::nullopt;
    if (agent_protocol::is_temporary_name(std::string_view(*name).substr(name->rfind('/') + 1))) return std::nullopt;
    if (!patterns_.matches(container_file)) return std::nullopt;
    return name;
}

std::string SyncBackMapping::local_file(std::string_view name) const { return local_path_ + "/" + std::string(name); }

}  // namespace liveupdate::sync_back
