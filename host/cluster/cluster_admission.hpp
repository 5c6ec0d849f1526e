// What the operator takes from one object read from a cluster, which it
// trusts less than a local file: only the kinds the plugin reads as data
// (never one that runs local processes, such as LocalContainer or Cmd),
// metadata reduced to name, namespace (shown by get, describe and the status
// page), labels and annotations, status dropped, and
// local paths put through the cluster path rule (cluster_objects.hpp) and
// then through the file system: a path whose symlinks lead out of the
// project folder is refused too.
#pragma once

#include <string>
#include <string_view>

#include <boost/json.hpp>

namespace liveupdate::host::cluster {

// The kinds the operator lists and watches, in the order they are applied.
inline constexpr std::string_view kTakenKinds[] = {"FileWatch", "KubernetesDiscovery", "ImageMap", "KubernetesApply",
                                                   "LiveUpdate"};
// tilt.dev kinds that run local processes: never taken, one warning each.
inline constexpr std::string_view kNeverTakenKinds[] = {"LocalContainer", "Cmd", "DockerComposeService",
                                                        "DockerComposeLogStream"};

struct ClusterVerdict {
    enum class Decision { taken, refused, ignored };
    Decision decision = Decision::ignored;
    boost::json::object object;  // taken: what the plugin sees
    std::string message;         // refused or ignored: why ("spec.basePath: Invalid value: ...")
};

bool is_taken_kind(std::string_view kind);

// What the developer allowed objects from the cluster beyond the rules above.
struct ClusterAllowances {
    // lu-host up --allow-sync-back: a LiveUpdate's spec.syncs[].syncBack may
    // make the daemon write container files into the project folder; without
    // it such a LiveUpdate is refused (docs/sync-back.md).
    bool sync_back = false;
};

// item: an object as the API server lists it; root: the project folder (absolute).
ClusterVerdict judge_cluster_object(const boost::json::object &item, std::string_view root,
                                    const ClusterAllowances &allowances = {});

// "" when path (absolute, inside root by its letters) stays inside root once
// its symlinks are followed; else why not.
std::string symlink_escape(std::string_view root, const std::string &path);

}  // namespace liveupdate::host::cluster
