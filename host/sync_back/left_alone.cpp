#include "host/sync_back/left_alone.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <map>
#include <set>
#include <stdexcept>
#include <string_view>
#include <utility>

#include "common/paths.hpp"
#include "common/sync_back/content_digest.hpp"
#include "common/sync_back/sync_back_rules.hpp"
#include "common/tree_digest/tree_digest.hpp"
#include "common/unique_fd.hpp"
#include "host/core/host_services.hpp"
#include "host/core/plugin_message.hpp"
#include "host/sync_back/beneath_files.hpp"
#include "liveupdate/ext/digest.h"

namespace liveupdate::host::sync_back {
namespace {

namespace rules = liveupdate::sync_back;
using rules::PathState;

// What the digest told of one path.
struct Entry {
    int32_t kind = 0;  // lu_digest_kind
    std::uint64_t hash = 0;
};

struct Collected {
    std::map<std::string, Entry> entries;  // relative to the root; "" the root itself
    std::string refused;                   // why an entry's path was refused; the digest stopped there
};

int32_t collect(void *ctx, const lu_digest_entry *entry) {
    auto &out = *static_cast<Collected *>(ctx);
    if (entry == nullptr) return 1;
    const std::string_view path(entry->path.data, entry->path.size);
    out.refused = tree_digest::entry_path_problem(path);
    if (!out.refused.empty()) return 1;
    out.entries[std::string(path)] = {entry->kind, entry->hash};
    return 0;
}

const lu_digest_extension *digest_table(const Updater &via) {
    const auto *table = static_cast<const lu_digest_extension *>(via.extension(LU_DIGEST_EXTENSION_ID));
    constexpr std::size_t needed = offsetof(lu_digest_extension, digest_scoped) + sizeof(table->digest_scoped);
    if (table == nullptr || table->struct_size < needed || table->digest_scoped == nullptr) return nullptr;
    return table;
}

// The local copy of a file: absent, a regular file's digest, or something else.
PathState local_state(const std::string &path) {
    struct stat st {};
    if (::lstat(path.c_str(), &st) != 0) {
        if (errno == ENOENT || errno == ENOTDIR) return PathState::absent_path();
        throw std::runtime_error("cannot read " + path + ": " + std::strerror(errno));
    }
    if (!S_ISREG(st.st_mode)) return PathState::other();
    const common::UniqueFd fd(::open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC));
    if (fd.get() < 0) throw std::runtime_error("cannot read " + path + ": " + std::strerror(errno));
    std::string error;
    std::string digest = content_digest(fd.get(), error);
    if (!error.empty()) throw std::runtime_error(path + ": " + error);
    return PathState::file(std::move(digest));
}

// Where the update takes container_path from, or "" when it carries nothing there.
std::string local_of(const update_step::ContainerUpdate &update, const std::string &container_path) {
    for (const updater::CopyMapping &copy : update.copy) {
        const std::string target = common::clean_path(copy.container_path);
        if (const auto beneath = common::child_path(target, container_path))
            return *beneath == "." ? common::clean_path(copy.local_path) : common::join_path(copy.local_path, *beneath);
    }
    return "";
}

// The container cannot be read (its updater's agent cannot run there): the
// files both sides agreed on may hold what the app wrote since, which nobody
// judged, so the whole sync leaves them as they are rather than overwrite
// them unseen; a save of one sends it as any forward write does. What the
// container holds beyond the agreements cannot be known, nor kept.
void leave_unread(const update_step::ContainerUpdate &update, const std::string &root, const std::string &folder,
                  const std::map<std::string, std::string> &agreed, const std::string &why, const LogSinkFn &log,
                  std::vector<LeftAlone> &out) {
    if (agreed.empty()) return;  // never agreed on: nothing known there to keep
    for (const auto &[relative, digest] : agreed) {
        const std::string container_path = folder + relative;
        out.push_back({.container_path = container_path,
                       .local_path = local_of(update, container_path),
                       .container_changed = false,
                       .unread = true});
    }
    log(common::LogLevel::warn,
        "Sync back: cannot read " + root + " in the container (" + (why.empty() ? "no digest there" : why) +
            "): " + std::to_string(agreed.size()) +
            " file(s) both sides agreed on before are left as the container has them, not overwritten unseen; "
            "save one to send it");
}

// The root's files that come back, each left alone when the rule says so.
void judge_root(const Updater &via, const lu_digest_extension &table, const update_step::ContainerUpdate &update,
                const std::string &root, const ComesBackFn &comes_back, const SyncedJournal &journal,
                const LogSinkFn &log, std::vector<LeftAlone> &out) {
    const std::string folder = root == "/" ? root : root + "/";
    // The agreed files the update could carry: only their content is read in the container.
    std::map<std::string, std::string> agreed;  // relative → digest
    for (const auto &[path, digest] : journal.agreements())
        if (path.starts_with(folder) && comes_back(path) && !local_of(update, path).empty())
            agreed.emplace(path.substr(folder.size()), digest);
    std::vector<lu_str> hash_paths;
    hash_paths.reserve(agreed.size());
    for (const auto &[relative, digest] : agreed) hash_paths.push_back({relative.data(), relative.size()});
    const lu_digest_scope scope{sizeof(lu_digest_scope),
                                hash_paths.data(),
                                hash_paths.size(),
                                tree_digest::kDefaultMaxBytes,
                                static_cast<std::uint64_t>(tree_digest::kDefaultMaxTime.count()),
                                nullptr,
                                nullptr};
    const lu_container_ref ref = updater::to_lu_container_ref(update.container);
    Collected collected;
    PluginMessage error(via.plugin().api().free_message);
    const int32_t rc = table.digest_scoped(via.handle(), &ref, {root.data(), root.size()}, &scope, collect, &collected,
                                           &log_to_sink, const_cast<LogSinkFn *>(&log), error.out());
    if (!collected.refused.empty())
        throw std::runtime_error("Sync back: the container's digest of " + root + " is refused: " + collected.refused);
    // Gone: nothing to keep (a recreated container gets everything).
    if (rc == LU_ERR_NOT_FOUND) return;
    if (rc == LU_ERR_UNSUPPORTED) {
        leave_unread(update, root, folder, agreed, error.str(), log, out);
        return;
    }
    if (rc != LU_OK)
        throw std::runtime_error(
            "Sync back: cannot tell what the container changed beneath " + root + ": " +
            (error.view().empty() ? "its digest failed (" + std::to_string(rc) + ")" : error.str()));
    const bool empty = std::none_of(collected.entries.begin(), collected.entries.end(),
                                    [](const auto &entry) { return !entry.first.empty(); });
    const rules::ContainerRoot held{.exists = true, .empty = empty};
    if (!rules::deletes_allowed(held)) return;  // emptied or recreated: it gets everything
    std::set<std::string> candidates;
    for (const auto &[relative, entry] : collected.entries)
        if (!relative.empty() && entry.kind != LU_DIGEST_DIR) candidates.insert(relative);
    for (const auto &[relative, digest] : agreed) candidates.insert(relative);
    for (const std::string &relative : candidates) {
        const std::string container_path = folder + relative;
        if (!comes_back(container_path)) continue;
        const std::string local_path = local_of(update, container_path);
        if (local_path.empty()) continue;
        const auto agreement = agreed.find(relative);
        const rules::Agreed agreed_digest =
            agreement == agreed.end() ? rules::Agreed{} : rules::Agreed{agreement->second};
        const auto entry = collected.entries.find(relative);
        const PathState container = entry == collected.entries.end() ? PathState::absent_path()
                                    : entry->second.kind == LU_DIGEST_FILE
                                        ? PathState::file(rules::digest_text(entry->second.hash))
                                        : PathState::other();
        const PathState local = local_state(local_path);
        if (rules::forward_carries(agreed_digest, local, container, held)) continue;
        out.push_back({.container_path = container_path,
                       .local_path = local_path,
                       .container_changed = !rules::holds_agreed(agreed_digest, container)});
    }
}

}  // namespace

std::vector<LeftAlone> left_alone(const Updater &via, const update_step::ContainerUpdate &update,
                                  const std::vector<std::string> &roots, const ComesBackFn &comes_back,
                                  const SyncedJournal &journal, const LogSinkFn &log) {
    std::vector<LeftAlone> out;
    const lu_digest_extension *table = digest_table(via);
    if (table == nullptr || !comes_back) return out;
    for (const std::string &root : roots) judge_root(via, *table, update, root, comes_back, journal, log, out);
    return out;
}

}  // namespace liveupdate::host::sync_back
