// A LiveUpdate's open sync-back conflicts in its status in a cluster
// (docs/sync-back.md): our fields beside Tilt's, merged into the engine's
// status before the operator writes it, so that one write carries both.
//   status.syncBackConflicts: [{container, path, kind}]  (path: in the container)
//   status.syncBackConflictCount: N                      (`kubectl get lu` CONFLICTS)
// Both are absent when none is open.
#pragma once

#include <boost/json.hpp>

namespace liveupdate::host::cluster {

// status with conflicts (as host/sync_back/conflicts_json.hpp makes them)
// in place of any it held.
boost::json::object with_sync_back_conflicts(boost::json::object status, const boost::json::array &conflicts);

}  // namespace liveupdate::host::cluster
