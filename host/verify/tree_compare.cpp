#include "host/verify/tree_compare.hpp"

#include <algorithm>
#include <functional>
#include <map>
#include <set>
#include <stdexcept>

#include "common/agent_protocol/temporary_names.hpp"
#include "common/paths.hpp"
#include "common/utf8.hpp"

namespace liveupdate::host::verify {
namespace {

using tree_digest::Entry;
using tree_digest::EntryKind;

std::string joined(const std::string &base, const std::string &relative) {
    return relative.empty() ? common::clean_path(base) : common::join_path(base, relative);
}

// path is dir or lies beneath it (both clean and absolute).
bool within(const std::string &path, const std::string &dir) {
    if (dir == "/") return true;
    return path == dir ||
           (path.size() > dir.size() && path.compare(0, dir.size(), dir) == 0 && path[dir.size()] == '/');
}

// True when relative or one of its parent folders is in dirs.
bool under_any(const std::string &relative, const std::set<std::string> &dirs) {
    if (dirs.empty()) return false;
    if (dirs.count("") != 0 || dirs.count(relative) != 0) return true;
    for (std::size_t slash = relative.find('/'); slash != std::string::npos; slash = relative.find('/', slash + 1))
        if (dirs.count(relative.substr(0, slash)) != 0) return true;
    return false;
}

const char *kind_name(EntryKind kind) {
    switch (kind) {
    case EntryKind::file: return "a file";
    case EntryKind::dir: return "a folder";
    case EntryKind::symlink: return "a symlink";
    case EntryKind::other: return "a special file";
    }
    return "something";
}

class Side {
public:
    Side(const updater::CopyMapping &target, const common::IgnoreSet &ignore,
         const std::vector<std::string> &other_targets)
        : target_(target), ignore_(ignore) {
        const std::string root = common::clean_path(target.container_path);
        // Only targets nested inside this one take paths away from it.
        for (const auto &other : other_targets) {
            const std::string o = common::clean_path(other);
            if (o != root && within(o, root)) nested_.push_back(o);
        }
    }

    // The entries the comparison sees, by relative path.
    std::map<std::string, const Entry *> kept(const tree_digest::Digest &digest) const {
        std::map<std::string, const Entry *> out;
        std::set<std::string> pruned;
        for (const Entry &e : digest) {
            if (under_any(e.path, pruned)) continue;
            if (!common::is_valid_utf8(e.path)) {
                if (e.kind == EntryKind::dir) pruned.insert(e.path);
                continue;
            }
            const std::string local = joined(target_.local_path, e.path);
            const std::string in_container = joined(target_.container_path, e.path);
            if (is_nested(in_container) || (e.kind == EntryKind::dir && ignore_.matches_entire_dir(local))) {
                pruned.insert(e.path);
                continue;
            }
            if (ignore_.matches(local)) continue;
            out.emplace(e.path, &e);
        }
        return out;
    }

    Difference difference(const std::string &relative, const Entry *local, const Entry *container,
                          std::string why = {}) const {
        Difference d{joined(target_.container_path, relative),
                     local != nullptr ? joined(target_.local_path, relative) : "", std::move(why), std::nullopt,
                     std::nullopt};
        if (local != nullptr) d.local_kind = local->kind;
        if (container != nullptr) d.container_kind = container->kind;
        return d;
    }

private:
    bool is_nested(const std::string &container_path) const {
        for (const auto &n : nested_)
            if (within(container_path, n)) return true;
        return false;
    }

    const updater::CopyMapping &target_;
    const common::IgnoreSet &ignore_;
    std::vector<std::string> nested_;
};

// What differs between two entries of the same path, or "" when nothing does.
std::string unlike(const Entry &local, const Entry &container) {
    if (local.kind != container.kind)
        return std::string(kind_name(local.kind)) + " here, " + kind_name(container.kind) + " in the container";
    if (local.kind == EntryKind::dir) return {};
    if (local.kind == EntryKind::symlink)
        return local.size != container.size || local.hash != container.hash ? "the symlink's target differs" : "";
    if (local.size != container.size)
        return std::to_string(local.size) + " bytes here, " + std::to_string(container.size) + " in the container";
    if (local.hash != container.hash) return "the content differs";
    const bool here = (local.mode & 0111) != 0;
    if (local.kind == EntryKind::file && here != ((container.mode & 0111) != 0))
        return here ? "executable here, not in the container" : "executable in the container, not here";
    return {};
}

}  // namespace

namespace {

// What lies beneath each container folder: synced by liveupdate, or not.
struct Beneath {
    bool synced = false;
    bool unsynced = false;
};

// For every folder of the container's whole digest (ignored and nested paths
// too: deleting the folder would take them along), what lies beneath it.
std::map<std::string, Beneath> beneath_of(const tree_digest::Digest &container,
                                          const std::function<bool(const std::string &)> &ours) {
    std::map<std::string, Beneath> out;
    for (const Entry &e : container) {
        if (e.path.empty()) continue;
        const bool mine = ours(e.path);
        for (std::size_t slash = e.path.find('/'); slash != std::string::npos; slash = e.path.find('/', slash + 1)) {
            Beneath &b = out[e.path.substr(0, slash)];
            (mine ? b.synced : b.unsynced) = true;
        }
        Beneath &root = out[""];
        (mine ? root.synced : root.unsynced) = true;
    }
    return out;
}

enum class Only { synced, unsynced, mixed };

// A path only in the container: all of it synced, none of it, or a folder holding both.
Only only_there(const std::string &relative, const Entry &c, bool mine, const std::map<std::string, Beneath> &beneath) {
    if (c.kind != EntryKind::dir) return mine ? Only::synced : Only::unsynced;
    const auto found = beneath.find(relative);
    const Beneath b = found != beneath.end() ? found->second : Beneath{};
    if (!b.synced && !b.unsynced) return mine ? Only::synced : Only::unsynced;
    if (!b.unsynced) return Only::synced;
    return b.synced ? Only::mixed : Only::unsynced;
}

}  // namespace

Differences compare_target(const updater::CopyMapping &target, const tree_digest::Digest &local,
                           const tree_digest::Digest &container, const common::IgnoreSet &ignore,
                           const std::vector<std::string> &other_targets, const SyncedPaths &synced) {
    for (const Entry &e : container)
        if (std::string problem = tree_digest::entry_path_problem(e.path); !problem.empty())
            throw std::runtime_error("the container's digest of " + target.container_path + " is refused: " + problem);
    const Side side(target, ignore, other_targets);
    const auto here = side.kept(local);
    const auto there = side.kept(container);
    // The agent's temporary files are never in the journal, yet always ours.
    const auto ours = [&](const std::string &relative) {
        return synced.count(joined(target.container_path, relative)) != 0 ||
               agent_protocol::is_temporary_name(std::string_view(relative).substr(relative.rfind('/') + 1));
    };
    const auto beneath = beneath_of(container, ours);
    Differences out;
    // Container paths whose whole subtree is already accounted for.
    std::set<std::string> settled;
    for (const auto &[relative, c] : there) {
        if (under_any(relative, settled)) continue;
        const auto found = here.find(relative);
        if (found == here.end()) {
            const Only only = only_there(relative, *c, ours(relative), beneath);
            if (only == Only::mixed) continue;  // what it holds is told one by one
            // V02, V03: extra when liveupdate put it there, else unsynced.
            (only == Only::synced ? out.extra : out.unsynced).push_back(side.difference(relative, nullptr, c));
            settled.insert(relative);
            continue;
        }
        std::string why = unlike(*found->second, *c);
        if (why.empty()) continue;
        Difference d = side.difference(relative, found->second, c, std::move(why));
        if (found->second->kind != c->kind) {
            settled.insert(relative);
            d.holds_unsynced = only_there(relative, *c, ours(relative), beneath) != Only::synced;
            if (d.holds_unsynced) d.why += " (holding files liveupdate did not put there: left alone)";
        }
        out.different.push_back(std::move(d));
    }
    for (const auto &[relative, l] : here) {
        if (l->kind == EntryKind::dir || l->kind == EntryKind::other) continue;
        if (there.count(relative) == 0) out.missing.push_back(side.difference(relative, l, nullptr));
    }
    return out;
}

Repair repair_of(const Differences &differences, bool delete_extra) {
    Repair repair;
    for (const auto &d : differences.extra) repair.deletes.push_back(d.container_path);
    if (delete_extra)  // V02: what liveupdate did not put there only when asked
        for (const auto &d : differences.unsynced) repair.deletes.push_back(d.container_path);
    SyncedPaths left;  // kind changes the repair leaves, and so what lies beneath them
    for (const auto &d : differences.different) {
        if (d.local_kind != d.container_kind) {
            if (d.holds_unsynced && !delete_extra) {
                left.insert(d.container_path);
                continue;
            }
            repair.deletes.push_back(d.container_path);
        }
        if (d.local_kind && *d.local_kind != EntryKind::dir && *d.local_kind != EntryKind::other)
            repair.copies.push_back({d.local_path, d.container_path});
    }
    for (const auto &d : differences.missing)
        if (!host::covers(left, d.container_path)) repair.copies.push_back({d.local_path, d.container_path});
    return repair;
}

std::vector<Difference> take_left_for_sync_back(Differences &differences, const SyncedPaths &left_alone) {
    std::vector<Difference> taken;
    if (left_alone.empty()) return taken;
    const auto left_for_sync_back = [&](const Difference &d) {
        if (left_alone.contains(d.container_path)) return true;
        const SyncedPaths folder{d.container_path};
        return std::any_of(left_alone.begin(), left_alone.end(),
                           [&](const std::string &path) { return host::covers(folder, path); });
    };
    for (auto list : {&Differences::missing, &Differences::extra, &Differences::different}) {
        std::vector<Difference> kept;
        for (Difference &d : differences.*list) (left_for_sync_back(d) ? taken : kept).push_back(std::move(d));
        differences.*list = std::move(kept);
    }
    return taken;
}

}  // namespace liveupdate::host::verify
