// The local path fields of the kinds kept in a cluster, each put through the
// cluster path rule (cluster_paths.hpp):
//   FileWatch   spec.watchedPaths[], spec.ignores[].basePath   (from the root)
//   LiveUpdate  spec.basePath                                  (from the root)
//               spec.syncs[].localPath, spec.stopPaths[], spec.restartPaths[],
//               spec.execs[].triggerPaths[]                    (from basePath)
// Fields resolved from the root are replaced by their absolute paths; those
// relative to basePath stay as written (the plugin joins them), once checked.
// A field of the wrong type is left for the plugin's admission to report.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include <boost/json.hpp>

namespace liveupdate::host::cluster {

struct PathFieldError {
    std::string field;    // "spec.syncs[0].localPath"
    std::string message;  // "Invalid value: \"/src\": must be relative ..."
};

struct ResolvedObject {
    boost::json::object object;  // paths resolved against the root
    std::vector<PathFieldError> errors;
};

ResolvedObject resolve_cluster_object(boost::json::object object, std::string_view root);

}  // namespace liveupdate::host::cluster
