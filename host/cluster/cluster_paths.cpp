#include "host/cluster/cluster_paths.hpp"

#include "common/paths.hpp"

namespace liveupdate::host::cluster {

namespace {

bool is_within(std::string_view path, std::string_view root) {
    if (root == "/") return true;
    return path == root ||
           (path.size() > root.size() && path.substr(0, root.size()) == root && path[root.size()] == '/');
}

// Walks path from `depth` folders under the root; false once a ".." climbs
// above it. Judged step by step, not on the result, so that the answer never
// depends on the root's own name ("../project/x" from /project).
bool stays_under_root(std::size_t depth, std::string_view path) {
    for (const std::string &segment : common::split_segments(path)) {
        if (segment == ".") continue;
        if (segment != "..") {
            ++depth;
        } else if (depth-- == 0) {
            return false;
        }
    }
    return true;
}

ClusterPath refused(std::string why) { return ClusterPath{{}, std::move(why)}; }

}  // namespace

ClusterPath resolve_cluster_path(std::string_view root, std::string_view from, std::string_view path) {
    if (path.empty()) return refused("a path is required (\".\" is the project folder)");
    if (path.front() == '/')
        return refused("must be relative to the project folder: an absolute path names a folder of one machine");
    const std::string clean_root = common::clean_path(root);
    const std::string clean_from = common::clean_path(from);
    const std::string escapes = "must not leave the project folder (\"..\" escapes it)";
    if (!is_within(clean_from, clean_root)) return refused(escapes);
    const std::size_t depth =
        clean_root == "/" ? common::split_segments(clean_from).size()
                          : common::split_segments(std::string_view(clean_from).substr(clean_root.size())).size();
    if (!stays_under_root(depth, path)) return refused(escapes);
    return ClusterPath{common::join_path(clean_from, path), {}};
}

}  // namespace liveupdate::host::cluster
