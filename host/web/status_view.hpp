// The status page's model, a pure function of what the daemon answers: one
// row per LiveUpdate (state, containers, last files synced, last update,
// mode, its recent updates' durations and files, its open sync-back
// conflicts), the LiveUpdates admission refused, and the loaded plugins.
#pragma once

#include <boost/json.hpp>

namespace liveupdate::host::web {

// list: the answer to {"op": "get", "kind": "LiveUpdate"} (what `get
// liveupdates -o json` prints); activity: Activity::summary(); plugins: the
// answer's "plugins" array. Each row's "state" is one of in-sync, updating,
// waiting, failed, needs-rebuild, rejected; "reason" and "message" say why.
boost::json::object status_view(const boost::json::value &list, const boost::json::object &activity,
                                const boost::json::value &plugins);

}  // namespace liveupdate::host::web
