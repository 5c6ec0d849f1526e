#include "tests/soak/tree_check.hpp"

#include <unistd.h>

#include <map>
#include <system_error>

#include "common/tree_digest/tree_digest.hpp"
#include "tests/integration/up_daemon.hpp"

namespace lu_soak {

namespace fs = std::filesystem;
using liveupdate::tree_digest::Entry;
using liveupdate::tree_digest::EntryKind;

namespace {

std::map<std::string, Entry> entries_of(const std::string &root) {
    bool found = false;
    std::map<std::string, Entry> out;
    // The app's files are compared by their content elsewhere; its sparse disk image is never read.
    liveupdate::tree_digest::WalkOptions options;
    options.hash_content = [](const std::string &rel) { return !SoakContainer::is_app_path(rel); };
    for (auto &e : liveupdate::tree_digest::digest_tree(root, options, found))
        if (!e.path.empty()) out.emplace(e.path, std::move(e));
    return out;
}

std::string kind_name(EntryKind kind) {
    switch (kind) {
    case EntryKind::file: return "file";
    case EntryKind::dir: return "folder";
    case EntryKind::symlink: return "symlink";
    default: return "special file";
    }
}

std::string link_target(const std::string &path) {
    char buf[4096];
    const ssize_t n = ::readlink(path.c_str(), buf, sizeof buf);
    return n < 0 ? "?" : std::string(buf, static_cast<std::size_t>(n));
}

std::string joined(const std::string &dir, const std::string &rel) {
    std::string out = dir;
    return out.append("/").append(rel);
}

std::string what_is(const Entry &e, const std::string &path) {
    if (e.kind == EntryKind::file) return "a file of " + std::to_string(e.size) + " bytes";
    if (e.kind == EntryKind::symlink) return "a symlink -> " + link_target(path);
    return "a " + kind_name(e.kind);
}

// Source paths against the container's, app paths left out.
void compare_synced(const fs::path &src, const SoakContainer &container, std::vector<Divergence> &out) {
    const std::string target = container.host_path(kSyncTarget);
    const auto local = entries_of(src.string());
    const auto remote = entries_of(target);
    const std::string synced = "every synced path equals its source";
    for (const auto &[rel, l] : local) {
        if (container.raced().contains(rel)) continue;  // compare_raced's
        const std::string where = std::string(kSyncTarget) + "/" + rel;
        const auto r = remote.find(rel);
        if (r == remote.end()) {
            out.push_back({where, synced, "missing in the container; locally " + what_is(l, (src / rel).string())});
        } else if (r->second.kind != l.kind || r->second.size != l.size || r->second.hash != l.hash) {
            std::string detail = "in the container " + what_is(r->second, joined(target, rel));
            detail.append(", locally ").append(what_is(l, (src / rel).string()));
            if (r->second.kind == l.kind) detail.append(", different content");
            out.push_back({where, synced, detail});
        }
    }
    for (const auto &[rel, r] : remote) {
        if (local.contains(rel) || SoakContainer::is_app_path(rel)) continue;
        out.push_back({std::string(kSyncTarget) + "/" + rel, "every path deleted from the source is gone",
                       "still in the container: " + what_is(r, joined(target, rel))});
    }
}

void compare_app_files(const SoakContainer &container, std::vector<Divergence> &out) {
    for (const auto &[rel, content] : container.app_files()) {
        const std::string where = std::string(kSyncTarget) + "/" + rel;
        const std::string path = container.host_path(where);
        std::error_code ec;
        if (!fs::is_regular_file(fs::symlink_status(path, ec))) {
            out.push_back({where, "every file the app wrote is still there", "gone from the container"});
        } else if (up_it::read_file(path) != content) {
            out.push_back({where, "every file the app wrote is still there", "its content was changed"});
        }
    }
}

// Both directions of sync back: what the app keeps in the sync-back folder is
// locally as it wrote it, and what it deleted there is gone locally too.
void compare_back_files(const fs::path &src, const SoakContainer &container, std::vector<Divergence> &out) {
    const std::string back = "every file the app wrote in the sync-back folder came back";
    for (const auto &[rel, content] : container.back_files()) {
        std::error_code ec;
        const fs::path local = src / rel;
        if (!fs::is_regular_file(fs::symlink_status(local, ec)))
            out.push_back({std::string(kSyncTarget) + "/" + rel, back, "not a file locally"});
        else if (up_it::read_file(local) != content)
            out.push_back({std::string(kSyncTarget) + "/" + rel, back, "locally with other content"});
    }
    for (const auto &rel : container.back_deleted()) {
        std::error_code ec;
        if (fs::exists(fs::symlink_status(src / rel, ec)))
            out.push_back({std::string(kSyncTarget) + "/" + rel, "every file the app deleted there is gone locally",
                           "still there locally"});
    }
}

// A file the app rewrote as the developer saved it: the container keeps the
// app's bytes; locally the developer's stay (a conflict) or, when the forward
// write landed before the app's, the app's came back. The forward write
// never replaces the app's change unseen (docs/sync-back.md).
void compare_raced(const fs::path &src, const SoakContainer &container, std::vector<Divergence> &out) {
    const std::string kept = "an app change racing a local save stays in the container";
    const std::string both = "a local save racing an app change stays unless the app's came after it";
    for (const auto &[rel, race] : container.raced()) {
        const std::string where = std::string(kSyncTarget) + "/" + rel;
        const fs::path in_container = container.host_path(where);
        std::error_code ec;
        if (!fs::is_regular_file(fs::symlink_status(in_container, ec)))
            out.push_back({where, kept, "not a file in the container"});
        else if (up_it::read_file(in_container) != race.app)
            out.push_back({where, kept, "in the container with other content (the app's change was replaced)"});
        const fs::path local = src / rel;
        if (!fs::is_regular_file(fs::symlink_status(local, ec)))
            out.push_back({where, both, "not a file locally"});
        else if (const std::string content = up_it::read_file(local); content != race.local && content != race.app)
            out.push_back({where, both, "locally neither the developer's save nor the app's content"});
    }
}

void check_outside(const SoakContainer &container, std::vector<Divergence> &out) {
    const std::string never = "nothing is written outside the sync target";
    const std::string outside = container.host_path(kOutsideDir);
    for (auto it = fs::directory_iterator(outside); it != fs::directory_iterator(); ++it)
        out.push_back({std::string(kOutsideDir) + "/" + it->path().filename().string(), never,
                       "written there (the source's symlinks point there)"});
    for (const auto &name : container.new_root_entries())
        out.push_back({"/" + name, never, "new at the container's root"});
}

}  // namespace

std::vector<Divergence> check_trees(const fs::path &src, const SoakContainer &container) {
    std::vector<Divergence> out;
    compare_synced(src, container, out);
    compare_app_files(container, out);
    compare_back_files(src, container, out);
    compare_raced(src, container, out);
    check_outside(container, out);
    return out;
}

std::string describe(const std::vector<Divergence> &divergences) {
    std::string out;
    for (const auto &d : divergences) out += "  " + d.path + ": " + d.detail + " [invariant: " + d.invariant + "]\n";
    return out;
}

}  // namespace lu_soak
