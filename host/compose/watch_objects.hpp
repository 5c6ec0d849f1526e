// Compose develop.watch rules as the Tilt objects the liveupdate plugin
// reconciles. For each service with rules, in project P:
//   FileWatch            <service>-watch-<n>  one per rule: the rule's path, its
//                        ignore patterns, its include patterns (as "everything
//                        but"), the build context's .dockerignore and .git
//   DockerComposeService <service>            project P, so discovery follows
//                        every replica by the com.docker.compose.* labels
//   LiveUpdate           <service>            syncs (sync, sync+restart,
//                        sync+exec), execs triggered by their rule's path
//                        (sync+exec) with their exec options, restartPaths
//                        (sync+restart, restart), initialSync when a rule asks
// A rebuild rule's FileWatch is no source of the LiveUpdate: the host rebuilds
// the service when it reports changes (rebuild_watches).
// A service whose rules are wrong yields no objects and an error per rule.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <boost/json.hpp>

#include "host/compose/compose_model.hpp"

namespace liveupdate::host::compose {

inline constexpr const char *kValidActions = "rebuild, restart, sync, sync+exec, sync+restart";

// The patterns of <context>/.dockerignore, nullopt when there is none.
using DockerignoreReader = std::function<std::optional<std::vector<std::string>>(const std::string &context_dir)>;

struct WatchObjects {
    std::vector<boost::json::object> objects;  // FileWatches first, then DockerComposeServices, then LiveUpdates
    std::vector<ComposeIssue> errors;
    std::vector<ComposeIssue> warnings;
    // FileWatch of a rebuild rule → its service, for the host's rebuilder
    std::map<std::string, std::string> rebuild_watches;
};

WatchObjects watch_objects(const Project &project, const DockerignoreReader &dockerignore);

}  // namespace liveupdate::host::compose
