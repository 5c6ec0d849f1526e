#include "host/verify/verifier.hpp"

#include <algorithm>
#include <cstddef>
#include <stdexcept>

#include "common/update_step/container_update.hpp"
#include "host/core/host_services.hpp"
#include "host/core/plugin_message.hpp"
#include "liveupdate/ext/digest.h"

namespace liveupdate::host::verify {
namespace json = boost::json;

namespace {

// The updater's digest function, or nullptr when it has none.
const lu_digest_extension *digest_table(const host::Updater &updater) {
    const auto *table = static_cast<const lu_digest_extension *>(updater.extension(LU_DIGEST_EXTENSION_ID));
    constexpr std::size_t needed = offsetof(lu_digest_extension, digest) + sizeof(table->digest);
    if (table == nullptr || table->struct_size < needed || table->digest == nullptr) return nullptr;
    return table;
}

const char *const kStopping = "not verified: the daemon is stopping";
const char *const kYielded = "not verified: a change came in, whose update goes first (the next check tells)";

// A check cut short for a change, which the next check makes up for.
struct Yielded : std::runtime_error {
    using std::runtime_error::runtime_error;
};

// When a verify stops: the daemon is stopping, or a change waits for the
// LiveUpdate's lock (the verify yields to it: a save never waits for a whole
// verify).
struct StopWhen {
    const std::atomic<bool> &cancelled;
    const std::function<bool()> &change_waiting;
    bool operator()() const { return cancelled || (change_waiting && change_waiting()); }
    [[noreturn]] void raise() const {
        if (cancelled) throw std::runtime_error(kStopping);
        throw Yielded(kYielded);
    }
};

// The entries a container digest gives, until the verify stops.
struct Collected {
    tree_digest::Digest entries;
    const StopWhen &stop;
    bool unknown_kind = false;
};

int32_t collect(void *ctx, const lu_digest_entry *entry) {
    auto &out = *static_cast<Collected *>(ctx);
    if (out.stop()) return 1;
    if (entry == nullptr || entry->kind < 1 || entry->kind > 4) {
        out.unknown_kind = true;
        return 1;  // out of the ABI: stop
    }
    out.entries.push_back({std::string(entry->path.data, entry->path.size),
                           static_cast<tree_digest::EntryKind>(entry->kind), entry->mode, entry->size, entry->hash});
    return 0;
}

// lu_digest_scope.keep_going: 0 once the verify stops (ctx: its StopWhen).
int32_t not_stopped(void *ctx) { return (*static_cast<const StopWhen *>(ctx))() ? 0 : 1; }

// The time left until deadline, at least a millisecond (zero would mean no limit).
std::chrono::milliseconds left_until(std::chrono::steady_clock::time_point deadline) {
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    return std::max(left, std::chrono::milliseconds(1));
}

// The local tree's files: the only container files whose content the comparison needs.
std::vector<lu_str> files_of(const tree_digest::Digest &local) {
    std::vector<lu_str> out;
    for (const auto &e : local)
        if (e.kind == tree_digest::EntryKind::file) out.push_back({e.path.data(), e.path.size()});
    return out;
}

// What the container holds at path; empty when nothing is there. Only the
// files named in hash_paths have their content read (when the updater can
// be told: digest_scoped), within the time left until deadline.
tree_digest::Digest container_digest(const host::Updater &updater, const lu_digest_extension &table,
                                     const updater::ContainerRef &container, const std::string &path,
                                     const std::vector<lu_str> &hash_paths,
                                     std::chrono::steady_clock::time_point deadline, const StopWhen &stop,
                                     const host::LogSinkFn &log) {
    const lu_container_ref ref = updater::to_lu_container_ref(container);
    Collected out{{}, stop};
    host::PluginMessage error(updater.plugin().api().free_message);
    constexpr std::size_t scoped = offsetof(lu_digest_extension, digest_scoped) + sizeof(table.digest_scoped);
    int32_t rc = LU_OK;
    if (table.struct_size >= scoped && table.digest_scoped != nullptr) {
        const lu_digest_scope scope{sizeof(lu_digest_scope),
                                    hash_paths.data(),
                                    hash_paths.size(),
                                    tree_digest::kDefaultMaxBytes,
                                    static_cast<std::uint64_t>(left_until(deadline).count()),
                                    not_stopped,
                                    const_cast<StopWhen *>(&stop)};
        rc = table.digest_scoped(updater.handle(), &ref, {path.data(), path.size()}, &scope, collect, &out,
                                 &host::log_to_sink, const_cast<host::LogSinkFn *>(&log), error.out());
    } else {
        rc = table.digest(updater.handle(), &ref, {path.data(), path.size()}, collect, &out, &host::log_to_sink,
                          const_cast<host::LogSinkFn *>(&log), error.out());
    }
    if (rc == LU_OK) return std::move(out.entries);
    if (rc == LU_ERR_NOT_FOUND) return {};
    if (rc == LU_ERR_STATE) {
        if (!out.unknown_kind) stop.raise();
        throw std::runtime_error("the updater gave an entry of an unknown kind while digesting " + path);
    }
    throw std::runtime_error(
        error.view().empty() ? "digesting " + path + " failed (result code " + std::to_string(rc) + ")" : error.str());
}

json::array paths_of(const std::vector<Difference> &list) {
    json::array out;
    for (const auto &d : list) out.emplace_back(d.container_path);
    return out;
}

json::object lists_of(const Differences &d) {
    json::array different;
    for (const auto &x : d.different) different.push_back(json::object{{"path", x.container_path}, {"why", x.why}});
    return json::object{{"missing", paths_of(d.missing)},
                        {"extra", paths_of(d.extra)},
                        {"different", std::move(different)},
                        {"unsynced", paths_of(d.unsynced)}};
}

void append(Differences &to, Differences &&from) {
    for (auto list : {&Differences::missing, &Differences::extra, &Differences::different, &Differences::unsynced})
        for (auto &d : from.*list) (to.*list).push_back(std::move(d));
}

// The repair as the update the plugin would ask of the container.
update_step::ContainerUpdate repair_update(const LiveUpdateTargets &lu, const updater::ContainerRef &container,
                                           const Repair &repair) {
    update_step::ContainerUpdate update;
    update.live_update = lu.name;
    update.via = lu.via;
    update.container = container;
    update.copy = repair.copies;
    update.delete_paths = repair.deletes;
    update.filter = lu.filter;
    return update;
}

}  // namespace

bool LiveUpdateReport::clean() const {
    if (!error.empty()) return false;
    for (const auto &c : containers)
        if (!c.clean()) return false;
    return true;
}

bool LiveUpdateReport::yielded() const {
    return std::any_of(containers.begin(), containers.end(), [](const ContainerReport &c) { return c.yielded; });
}

json::value to_json(const LiveUpdateReport &report) {
    json::array containers;
    for (const auto &c : report.containers) {
        json::object o = lists_of(c.found);
        o["container"] = c.container;
        if (!c.error.empty()) o["error"] = c.error;
        if (c.repaired) {
            o["repaired"] = true;
            o["remaining"] = lists_of(c.remaining);
        }
        if (!c.left_for_sync_back.empty()) o["leftForSyncBack"] = paths_of(c.left_for_sync_back);
        containers.push_back(std::move(o));
    }
    json::object out{{"name", report.name}, {"clean", report.clean()}, {"containers", std::move(containers)}};
    if (!report.error.empty()) out["error"] = report.error;
    return out;
}

std::vector<std::string> difference_lines(const Differences &differences, std::size_t limit) {
    std::vector<std::string> lines;
    std::size_t total = 0;
    const auto add = [&](const std::string &line) {
        if (total++ < limit) lines.push_back(line);
    };
    for (const auto &d : differences.missing) add("missing   " + d.container_path);
    for (const auto &d : differences.extra) add("extra     " + d.container_path);
    for (const auto &d : differences.different) add("different " + d.container_path + " (" + d.why + ")");
    for (const auto &d : differences.unsynced)
        add("unsynced  " + d.container_path + " (not synced by liveupdate: left alone)");
    if (total > limit) lines.push_back("... and " + std::to_string(total - limit) + " more");
    return lines;
}

Differences Verifier::compare(const LiveUpdateTargets &lu, const std::vector<LiveUpdateTargets> &all,
                              const RunningContainer &container, const host::LogSinkFn &log, Clock::time_point deadline,
                              const std::function<bool()> &change_waiting) const {
    const StopWhen stop{cancelled_, change_waiting};
    const std::shared_ptr<const host::Updater> updater = updaters_.find(lu.via);
    if (!updater) throw std::runtime_error("no updater serves \"" + lu.via + "\"");
    const lu_digest_extension *table = digest_table(*updater);
    if (table == nullptr)
        throw std::runtime_error("the " + lu.via + " updater (" + updater->plugin().identity().name +
                                 ") cannot digest containers: it has no " LU_DIGEST_EXTENSION_ID
                                 " extension (an updater that digests through lu-agent, as kubernetes does, offers "
                                 "it only with its agent on)");
    const common::IgnoreSet ignore = common::ignore_set_of(lu.filter);
    host::SyncedPaths synced;
    if (host::SyncedJournals *journals = executor_.journals())
        synced = journals->journal(host::SyncedKey::of(lu.name, lu.via, container.ref.id, container.ref.root))->paths();
    Differences out;
    for (const updater::CopyMapping &target : lu.targets) {
        if (stop()) stop.raise();
        // The local tree first: its files are the container's files whose content counts.
        tree_digest::WalkOptions options;
        options.prune = [&ignore](const std::string &dir) { return ignore.matches_entire_dir(dir); };
        options.max_time = left_until(deadline);
        options.keep_going = [&stop] { return !stop(); };
        bool found = false;
        const tree_digest::Digest local = tree_digest::digest_tree(target.local_path, options, found);
        if (stop()) stop.raise();
        const tree_digest::Digest remote = container_digest(*updater, *table, container.ref, target.container_path,
                                                            files_of(local), deadline, stop, log);
        append(out, compare_target(target, local, remote, ignore, other_targets(all, lu, container, target), synced));
    }
    return out;
}

LiveUpdateReport Verifier::verify(const LiveUpdateTargets &lu, const std::vector<LiveUpdateTargets> &all, bool repair,
                                  const host::LogSinkFn &log, bool delete_extra,
                                  const std::function<bool()> &change_waiting) const {
    LiveUpdateReport report{lu.name, lu.problem, {}};
    if (!report.error.empty()) return report;
    // One budget for the whole verify, the repair's check included: the
    // LiveUpdate's saves wait for it (VerifyService runs it exclusively).
    const Clock::time_point deadline = Clock::now() + tree_digest::kDefaultMaxTime;
    const std::string budget =
        "the verify's time budget (" + std::to_string(tree_digest::kDefaultMaxTime.count() / 1000) + " s) ran out";
    for (const RunningContainer &container : lu.containers) {
        ContainerReport c;
        c.container = container.display;
        c.id = container.ref.id;
        try {
            if (Clock::now() >= deadline)
                throw std::runtime_error("not verified: " + budget + " before this container");
            c.found = compare(lu, all, container, log, deadline, change_waiting);
            const Repair fix = repair_of(c.found, delete_extra);
            if (repair && !fix.empty()) {
                host::WholeUpdateNotes notes;
                const updater::Outcome outcome = executor_.execute(repair_update(lu, container.ref, fix), log, nullptr,
                                                                   host::ForwardScope::whole, &notes);
                host::SyncedPaths left;
                for (const host::LeftAlone &file : notes.left_alone) left.insert(file.container_path);
                if (notes.sent || outcome.kind != updater::Outcome::Kind::ok) {
                    c.repaired = true;
                    if (outcome.kind != updater::Outcome::Kind::ok) c.error = "the repair failed: " + outcome.message;
                    if (Clock::now() >= deadline)
                        throw std::runtime_error("repaired, not verified again: " + budget + " (the next check tells)");
                    if (change_waiting && change_waiting())
                        throw Yielded("repaired, not verified again: a change came in (the next check tells)");
                    c.remaining = compare(lu, all, container, log, deadline, change_waiting);
                    c.left_for_sync_back = take_left_for_sync_back(c.remaining, left);
                } else {
                    // All it would mend was left for sync back: nothing changed, nothing to check again.
                    Differences rest = c.found;
                    c.left_for_sync_back = take_left_for_sync_back(rest, left);
                }
            }
        } catch (const Yielded &e) {
            c.yielded = true;
            c.error = c.error.empty() ? e.what() : c.error + "; " + e.what();
        } catch (const std::exception &e) {
            c.error = c.error.empty() ? e.what() : c.error + "; " + e.what();
        }
        report.containers.push_back(std::move(c));
    }
    return report;
}

}  // namespace liveupdate::host::verify
