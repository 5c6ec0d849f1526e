// Which sync backs a LiveUpdate asks for now (docs/sync-back.md): each of
// the running containers its selector picks, with each sync rule whose
// spec.syncs[i].syncBack is not empty. The containers and the rules' paths
// are the plugin's answer (verify::LiveUpdateTargets, one target per rule,
// in order); the patterns are the object's.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include <boost/json.hpp>

#include "host/sync_back/container_sync_back.hpp"
#include "host/verify/verify_targets.hpp"

namespace liveupdate::host::up {

// Whether the LiveUpdate object has a sync rule with syncBack.
bool asks_for_sync_back(const boost::json::object &live_update);

// Whether a container file comes back by one of the LiveUpdate's rules (its
// containerPath and syncBack patterns), in whichever container: the forward
// sync agrees on the digest of each such file it carries. Empty when no rule
// has syncBack (a malformed pattern, which admission refuses, counts as none).
std::function<bool(const std::string &container_file)> comes_back(const boost::json::object &live_update);

// Nothing when the plugin's answer has a problem or does not name one target per rule.
std::vector<sync_back::SyncBackTarget> sync_back_targets(const boost::json::object &live_update,
                                                         const verify::LiveUpdateTargets &targets);

}  // namespace liveupdate::host::up
