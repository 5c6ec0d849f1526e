#include "host/cluster/sync_back_status.hpp"

#include "common/json_fields.hpp"

namespace liveupdate::host::cluster {
namespace json = boost::json;

json::object with_sync_back_conflicts(json::object status, const json::array &conflicts) {
    status.erase("syncBackConflicts");
    status.erase("syncBackConflictCount");
    if (conflicts.empty()) return status;
    // Not the local path: the developer's folder is none of the cluster's business.
    json::array listed;
    for (const auto &c : conflicts)
        listed.push_back(json::object{{"container", common::string_field(c, {"container"})},
                                      {"path", common::string_field(c, {"path"})},
                                      {"kind", common::string_field(c, {"kind"})}});
    status["syncBackConflicts"] = std::move(listed);
    status["syncBackConflictCount"] = conflicts.size();
    return status;
}

}  // namespace liveupdate::host::cluster
