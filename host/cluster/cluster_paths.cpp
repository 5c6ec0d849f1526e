#include "host/cluster/cluster_paths.hpp"

#include "common/paths.hpp"

namespace liveupdate::host::cluster {

namespace {

bool is_within(std::string_view path, std::string_view root) {
    if (root == "/") return true;
    return path == root ||
           (path.size() > root.size() && path.substr(0, root.size()) == root && path[root.size()] == '/');
}

ClusterPath refused(std::string why) { return ClusterPath{{}, std::move(why)}; }

}  // namespace

ClusterPath resolve_cluster_path(std::string_view root, std::string_view from, std::string_view path) {
    if (path.empty()) return refused("a path is required (\".\" is the project folder)");
    if (path.front() == '/')
        return refused("must be relative to the project folder: an absolute path names a folder of one machine");
    const std::string clean_root = common::clean_path(root);
    const std::string resolved = common::join_path(from, path);
    if (!is_within(resolved, clean_root)) return refused("must not leave the project folder (\"..\" escapes it)");
    return ClusterPath{resolved, {}};
}

}  // namespace liveupdate::host::cluster
