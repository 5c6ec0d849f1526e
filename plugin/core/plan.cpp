#include "plugin/core/plan.hpp"

#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <map>
#include <stdexcept>

#include "common/paths.hpp"
#include "common/text_format.hpp"

namespace liveupdate {
namespace {

bool ends_with_slash(const std::string &p) { return !p.empty() && p.back() == '/'; }

std::string base_name(const std::string &p) {
    const auto clean = common::clean_path(p);
    const auto slash = clean.rfind('/');
    return slash == std::string::npos ? clean : clean.substr(slash + 1);
}

struct StatResult {
    int error = 0;  // errno, 0 on success
    bool is_dir = false;
};

// A sync rule's own local path is followed, as `tar -C` follows its folder;
// a link that leads nowhere (dangling, a loop) is still there: a link.
StatResult stat_rule_root(const std::string &p) {
    struct stat st {};
    if (::stat(p.c_str(), &st) == 0) return {0, S_ISDIR(st.st_mode)};
    const int error = errno;
    if (::lstat(p.c_str(), &st) == 0) return {0, false};
    return {error, false};
}

// A changed path is an entry of its own, as tar makes it: a symlink is never
// followed. ELOOP can only come from a parent then, so the path cannot exist.
StatResult stat_entry(const std::string &p) {
    struct stat st {};
    if (::lstat(p.c_str(), &st) != 0) return {errno == ELOOP ? ENOENT : errno, false};
    return {0, S_ISDIR(st.st_mode)};
}

void sort_unique_by_container(std::vector<updater::CopyMapping> &v) {
    std::sort(v.begin(), v.end(), [](const updater::CopyMapping &a, const updater::CopyMapping &b) {
        if (a.container_path != b.container_path) return a.container_path < b.container_path;
        return a.local_path < b.local_path;
    });
    v.erase(std::unique(v.begin(), v.end(),
                        [](const updater::CopyMapping &a, const updater::CopyMapping &b) {
                            return a.container_path == b.container_path;
                        }),
            v.end());
}

}  // namespace

std::vector<updater::CopyMapping> sync_rules(const api::LiveUpdateSpec &spec) {
    std::vector<updater::CopyMapping> out;
    out.reserve(spec.syncs.size());
    for (const auto &s : spec.syncs) {
        std::string local = s.local_path;
        if (local.empty() || local.front() != '/') local = common::join_path(spec.base_path, local);
        out.push_back({local, s.container_path});
    }
    return out;
}

updater::CopyMapping whole_rule_mapping(const updater::CopyMapping &rule) {
    if (!ends_with_slash(rule.container_path)) return rule;
    const auto st = stat_rule_root(rule.local_path);
    if (st.error != 0 && st.error != ENOENT && st.error != ENOTDIR)
        throw std::runtime_error("stat " + rule.local_path + ": " + std::strerror(st.error));
    if (st.error != 0 || st.is_dir) return rule;
    return {rule.local_path, common::join_path(rule.container_path, base_name(rule.local_path))};
}

PlanResult create_plan(const api::LiveUpdateSpec &spec, const std::vector<std::string> &files_changed,
                       PlanMappings mappings) {
    PlanResult result;
    const auto rules = sync_rules(spec);
    for (const auto &file : files_changed) {
        bool mapped = false;
        for (const auto &rule : rules) {
            const auto rel = common::child_path(rule.local_path, file);
            if (!rel) continue;
            const auto st = stat_rule_root(rule.local_path);
            if (st.error != 0) {
                result.failed = PlanFailure{"UpdateStopped", "No update plan: error stat'ing: stat " + rule.local_path +
                                                                 ": " + std::strerror(st.error)};
                return result;
            }
            mapped = true;
            ++result.plan.synced;
            if (mappings == PlanMappings::count_only) break;
            std::string container;
            if (ends_with_slash(rule.container_path) && !st.is_dir)
                container = common::join_path(rule.container_path, base_name(rule.local_path));
            else
                container = common::join_path(rule.container_path, *rel);
            result.plan.sync_paths.push_back({file, container});
            break;
        }
        const bool restarts = common::matches_file_or_child(spec.restart_paths, spec.base_path, file);
        if (restarts) result.plan.restart_paths.push_back(file);
        if (!mapped && !restarts) result.plan.no_match_paths.push_back(file);
    }
    for (const auto &file : files_changed)
        if (common::matches_file_or_child(spec.stop_paths, spec.base_path, file))
            result.plan.stop_paths.push_back(file);

    if (!result.plan.no_match_paths.empty()) {
        result.failed =
            PlanFailure{"UpdateStopped", "Found file(s) not matching any sync (files: " +
                                             common::format_file_change_list(result.plan.no_match_paths) + ")"};
    } else if (!result.plan.stop_paths.empty()) {
        result.failed = PlanFailure{"UpdateStopped",
                                    "Detected change to stop file " + common::go_quote(result.plan.stop_paths.front())};
    }
    return result;
}

namespace {

template <class Synced, class LocalPathOf>
std::vector<updater::RunStep> runs_triggered_by(const api::LiveUpdateSpec &spec, const Synced &synced,
                                                LocalPathOf local_path_of) {
    std::vector<updater::RunStep> out;
    for (const auto &exec : spec.execs) {
        bool run = exec.trigger_paths.empty();
        for (std::size_t i = 0; !run && i < synced.size(); ++i)
            run = common::matches_file_or_child(exec.trigger_paths, spec.base_path, local_path_of(synced[i]));
        if (run) out.push_back({exec.args, exec.echo_off, exec.user, exec.working_dir, exec.env, exec.privileged});
    }
    return out;
}

}  // namespace

std::vector<updater::RunStep> boil_runs(const api::LiveUpdateSpec &spec,
                                        const std::vector<updater::CopyMapping> &synced) {
    return runs_triggered_by(spec, synced,
                             [](const updater::CopyMapping &m) -> const std::string & { return m.local_path; });
}

std::vector<updater::RunStep> boil_runs_of_local_paths(const api::LiveUpdateSpec &spec,
                                                       const std::vector<std::string> &synced_local_paths) {
    return runs_triggered_by(spec, synced_local_paths, [](const std::string &p) -> const std::string & { return p; });
}

namespace {

// The local path of the innermost rule holding path, or "".
std::string rule_root_of(const std::string &path, const std::vector<updater::CopyMapping> &rules) {
    std::string best;
    for (const auto &r : rules) {
        const std::string &root = r.local_path;
        const bool holds = path.size() > root.size() && path.compare(0, root.size(), root) == 0 &&
                           (root.back() == '/' || path[root.size()] == '/');
        if (holds && root.size() > best.size()) best = root;
    }
    return best;
}

// True when a folder between root (followed, as tar -C does) and path is a symlink.
bool beneath_a_symlink(const std::string &root, const std::string &path, std::map<std::string, bool> &seen) {
    for (auto slash = path.rfind('/'); slash != std::string::npos && slash > root.size();
         slash = path.rfind('/', slash - 1)) {
        const std::string parent = path.substr(0, slash);
        auto [it, fresh] = seen.try_emplace(parent, false);
        if (fresh) {
            struct stat st {};
            it->second = ::lstat(parent.c_str(), &st) == 0 && S_ISLNK(st.st_mode);
        }
        if (it->second) return true;
    }
    return false;
}

}  // namespace

CopyDelete split_by_existence(const std::vector<updater::CopyMapping> &mappings,
                              const std::vector<updater::CopyMapping> &rules) {
    CopyDelete out;
    std::map<std::string, bool> symlink_parents;
    for (const auto &m : mappings) {
        const std::string root = rule_root_of(m.local_path, rules);
        if (!root.empty() && beneath_a_symlink(root, m.local_path, symlink_parents)) {
            out.to_delete.push_back(m);
            continue;
        }
        const auto st = stat_entry(m.local_path);
        if (st.error == 0) {
            out.to_copy.push_back(m);
        } else if (st.error == ENOENT || st.error == ENOTDIR) {
            out.to_delete.push_back(m);
        } else {
            throw std::runtime_error("MissingLocalPaths: stat " + m.local_path + ": " + std::strerror(st.error));
        }
    }
    sort_unique_by_container(out.to_copy);
    sort_unique_by_container(out.to_delete);
    return out;
}

}  // namespace liveupdate
