// A LiveUpdate's open sync-back conflicts as its status shows them
// (`status.syncBackConflicts`, docs/sync-back.md): read by `lu-host get` and
// `describe`, the status page and, from a cluster, the LiveUpdate's status.
#pragma once

#include <string_view>
#include <vector>

#include <boost/json.hpp>

#include "host/sync_back/sync_back_watches.hpp"

namespace liveupdate::host::sync_back {

// The kind of conflict as a status reason: BothModified,
// LocalModifiedContainerDeleted, LocalDeletedContainerModified, NotARegularFile.
std::string_view conflict_reason(rules::ConflictKind kind);

// One object per conflict: container, path (in the container), localPath,
// kind (conflict_reason) and message.
boost::json::array conflicts_json(const std::vector<OpenConflict> &conflicts);

}  // namespace liveupdate::host::sync_back
