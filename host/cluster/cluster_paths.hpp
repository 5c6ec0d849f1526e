// The one rule for local paths in objects kept in a cluster (kubectl apply of
// tilt.dev/v1alpha1 objects): they are written relative to the developer's
// project folder, which only the operator knows, so each is relative, stays
// inside that folder once resolved ("src/../lib" yes, "../x" no) and is
// resolved against it. The webhook resolves against a placeholder root and
// the operator against the real folder: what one admits, the other accepts.
#pragma once

#include <string>
#include <string_view>

namespace liveupdate::host::cluster {

struct ClusterPath {
    std::string resolved;  // absolute and clean; empty when refused
    std::string error;     // why refused; empty when resolved

    bool ok() const { return error.empty(); }
};

// path resolved against `from` (root itself or a folder under it, absolute and
// clean). Refused: an empty path, an absolute one, one that leaves root.
ClusterPath resolve_cluster_path(std::string_view root, std::string_view from, std::string_view path);

}  // namespace liveupdate::host::cluster
