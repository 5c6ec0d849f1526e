#include "host/core/executor.hpp"

#include <algorithm>
#include <exception>
#include <set>
#include <string>
#include <vector>

#include "common/json_fields.hpp"
#include "common/paths.hpp"
#include "common/update_step/container_update.hpp"
#include "common/update_step/outcome.hpp"
#include "host/core/host_error.hpp"
#include "host/core/host_metrics.hpp"
#include "liveupdate/liveupdate.hpp"

namespace liveupdate::host {
namespace json = boost::json;

namespace {

constexpr const char *kBadStep = "malformed update step";
// A shared archive larger than this is streamed by each update instead: memory stays flat for an initial sync.
constexpr std::size_t kSharedArchiveMax = std::size_t{1} << 20;

// The outcome's kind as the metrics label it.
std::string result_name(updater::Outcome::Kind kind) {
    switch (kind) {
    case updater::Outcome::Kind::ok: return "ok";
    case updater::Outcome::Kind::run_failure: return "run_failure";
    case updater::Outcome::Kind::infra_failure: return "infra_failure";
    case updater::Outcome::Kind::container_not_running: return "container_not_running";
    }
    return "infra_failure";
}

update_step::ContainerUpdate decoded(const json::object &update) {
    try {
        return update_step::decode_update(update, "update");
    } catch (const common::DecodeError &e) {
        throw HostError(kBadStep, e.field(), e.reason());
    }
}

common::IgnoreSet compiled_filter(const update_step::ContainerUpdate &update) {
    try {
        return common::ignore_set_of(update.filter);
    } catch (const std::invalid_argument &e) {
        throw HostError(kBadStep, "update.filter", e.what());
    }
}

// Once the updater deleted them, the deleted paths leave the journal; what the
// archive put back beneath them (a path whose kind changed) stays.
void note_deletes(SyncedJournal &journal, const std::vector<std::string> &deletes,
                  const std::vector<std::string> &archived_beneath) {
    if (deletes.empty()) return;
    journal.remove(deletes);
    journal.add(archived_beneath);
}

// The update without the deletes sync back holds, each held one logged.
update_step::ContainerUpdate without_held_deletes(const update_step::ContainerUpdate &update,
                                                  const ForwardSyncBack &sync_back, const SyncedJournal *journal,
                                                  const LogSinkFn &log) {
    if (!sync_back.held_delete || journal == nullptr || update.delete_paths.empty()) return update;
    update_step::ContainerUpdate out = update;
    out.delete_paths.clear();
    for (const std::string &path : update.delete_paths) {
        if (std::string why = sync_back.held_delete(path, *journal); !why.empty())
            log(common::LogLevel::warn, "Sync back: " + why);
        else
            out.delete_paths.push_back(path);
    }
    return out;
}

// Whether the update would change nothing in the container.
bool carries_nothing(const update_step::ContainerUpdate &update) {
    return update.copy.empty() && update.delete_paths.empty() && update.runs.empty() && !update.restart;
}

// The update without what sync back leaves alone: its copies and deletes of
// those files (a delete of a folder holding a container change too), and
// the local paths its archive must leave out, in left_out. Said in its log.
update_step::ContainerUpdate without_left_alone(const update_step::ContainerUpdate &update,
                                                const std::vector<LeftAlone> &left_alone,
                                                std::set<std::string, std::less<>> &left_out, const LogSinkFn &log) {
    if (left_alone.empty()) return update;
    SyncedPaths container_paths;
    std::vector<std::string> changed;
    for (const LeftAlone &file : left_alone) {
        container_paths.insert(file.container_path);
        left_out.insert(file.local_path);
        if (file.container_changed) changed.push_back(file.container_path);
    }
    update_step::ContainerUpdate out = update;
    std::erase_if(out.copy, [&](const updater::CopyMapping &copy) {
        return container_paths.contains(common::clean_path(copy.container_path));
    });
    std::erase_if(out.delete_paths, [&](const std::string &path) {
        const SyncedPaths deleted{path};
        return std::any_of(changed.begin(), changed.end(), [&](const std::string &c) { return covers(deleted, c); });
    });
    if (changed.empty()) return out;
    constexpr std::size_t kListed = 10;
    std::string listed;
    for (std::size_t i = 0; i < changed.size() && i < kListed; ++i) listed += (i > 0 ? ", " : "") + changed[i];
    if (changed.size() > kListed) listed += " and " + std::to_string(changed.size() - kListed) + " more";
    log(common::LogLevel::info, "Sync back: " + std::to_string(changed.size()) +
                                    " file(s) the container changed since both sides last agreed are left to come "
                                    "back, not overwritten: " +
                                    listed);
    return out;
}

// The C views of an update that an lu_update_request points into;
// they live as long as this does.
struct RequestViews {
    explicit RequestViews(const update_step::ContainerUpdate &update) {
        container = updater::to_lu_container_ref(update.container);
        for (const updater::CopyMapping &copy : update.copy)
            mappings.push_back(lu_path_mapping{copy.local_path.c_str(), copy.container_path.c_str()});
        for (const std::string &path : update.delete_paths) delete_paths.push_back(path.c_str());
        for (const std::string &root : update.sync_roots) sync_roots.push_back(root.c_str());
        for (const updater::RunStep &run : update.runs) {
            argvs.push_back(c_strings(run.argv));
            envs.push_back(c_strings(run.env));
        }
        for (std::size_t i = 0; i < update.runs.size(); ++i) {
            const updater::RunStep &run = update.runs[i];
            runs.push_back(lu_run_step{argvs[i].data(), argvs[i].size(), run.echo_off ? 1 : 0});
            run_options.push_back(lu_run_options{sizeof(lu_run_options), run.user.c_str(), run.working_dir.c_str(),
                                                 envs[i].data(), envs[i].size(), run.privileged ? 1 : 0});
        }
    }

    static std::vector<const char *> c_strings(const std::vector<std::string> &strings) {
        std::vector<const char *> out;
        out.reserve(strings.size());
        for (const std::string &s : strings) out.push_back(s.c_str());
        return out;
    }

    // guard: the update's forward guard, or null for an unguarded update.
    lu_update_request request(const update_step::ContainerUpdate &update, lu_archive_stream archive,
                              const LogSinkFn &log, ForwardedFiles *guard) {
        lu_update_request r{};
        r.struct_size = sizeof(lu_update_request);
        r.live_update = update.live_update.c_str();
        r.via = update.via.c_str();
        r.container = &container;
        r.copies = mappings.data();
        r.copy_count = mappings.size();
        r.archive = archive;
        r.delete_paths = delete_paths.data();
        r.delete_count = delete_paths.size();
        r.runs = runs.data();
        r.run_count = runs.size();
        r.restart = update.restart ? 1 : 0;
        r.initial_sync = update.initial_sync ? 1 : 0;
        r.run_options = run_options.empty() ? nullptr : run_options.data();
        r.log = &log_to_sink;
        r.log_ctx = const_cast<LogSinkFn *>(&log);
        r.sync_roots = sync_roots.data();
        r.sync_root_count = sync_roots.size();
        r.archive_rewind = &ArchiveStream::rewind_fn;
        if (guard != nullptr) {
            r.expected = &ForwardedFiles::expected_fn;
            r.kept = &ForwardedFiles::kept_fn;
            r.guard_ctx = guard;
        }
        return r;
    }

    lu_container_ref container{};
    std::vector<lu_path_mapping> mappings;
    std::vector<const char *> delete_paths;
    std::vector<const char *> sync_roots;
    std::vector<std::vector<const char *>> argvs;
    std::vector<lu_run_step> runs;
    std::vector<std::vector<const char *>> envs;
    std::vector<lu_run_options> run_options;
};

// Whatever the updater says, an archive that is not complete is not a
// success: the update fails naming what did not arrive.
updater::Outcome with_archive_finished(updater::Outcome outcome, ArchiveStream &archive, const LogSinkFn &log) {
    const bool updater_failed = outcome.kind == updater::Outcome::Kind::infra_failure ||
                                outcome.kind == updater::Outcome::Kind::container_not_running;
    if (auto incomplete = archive.finish(!updater_failed)) {
        if (updater_failed) {
            outcome.message += outcome.message.empty() ? *incomplete : " (" + *incomplete + ")";
        } else {
            log(common::LogLevel::error, *incomplete);
            std::string message = *incomplete;
            if (outcome.kind == updater::Outcome::Kind::run_failure) message += "; " + outcome.message;
            outcome = updater::Outcome::infra_failure(message);
        }
    }
    return outcome;
}

// Between updates, where a rewrite delays no byte: the update stands
// whatever happens here, as the journal is still whole when it fails.
void compact_journal(SyncedJournal &journal, const LogSinkFn &log) {
    try {
        journal.compact_if_due();
    } catch (const std::exception &e) {
        log(common::LogLevel::warn, std::string("the synced journal keeps its dead lines for now: ") + e.what());
    }
}

}  // namespace

std::shared_ptr<const PrebuiltArchive> Executor::shared_archive(
    const std::vector<const update_step::ContainerUpdate *> &updates) const {
    if (updates.size() < 2) return nullptr;
    const update_step::ContainerUpdate &first = *updates[0];
    if (first.copy.empty()) return nullptr;
    for (std::size_t i = 1; i < updates.size(); ++i)
        if (updates[i]->copy != first.copy || updates[i]->filter != first.filter) return nullptr;
    try {
        return prebuild_archive(first.copy, compiled_filter(first), kSharedArchiveMax);
    } catch (const std::exception &) {
        return nullptr;  // a bad filter: each update fails saying why
    }
}

updater::Outcome Executor::execute(const json::object &update, const LogSinkFn &log) const {
    try {
        return execute(decoded(update), log);
    } catch (const std::exception &e) {
        log(common::LogLevel::error, e.what());
        return updater::Outcome::infra_failure(e.what());
    }
}

updater::Outcome Executor::execute(const update_step::ContainerUpdate &asked, const LogSinkFn &log,
                                   const std::shared_ptr<const PrebuiltArchive> &shared, ForwardScope scope,
                                   WholeUpdateNotes *notes) const {
    try {
        common::IgnoreSet ignore = compiled_filter(asked);

        std::shared_ptr<const Updater> updater = updaters_.find(asked.via);
        if (!updater) return updater::Outcome::infra_failure("no updater serves \"" + asked.via + "\"");

        std::shared_ptr<SyncedJournal> journal;
        if (journals_ != nullptr)
            journal = journals_->journal(
                SyncedKey::of(asked.live_update, asked.via, asked.container.id, asked.container.root));
        const ForwardSyncBack sync_back = journal && sync_back_ ? sync_back_(asked) : ForwardSyncBack{};
        // A container synced into before may hold changes no watch brought back yet (no daemon ran).
        const bool whole = asked.initial_sync || scope == ForwardScope::whole;
        std::set<std::string, std::less<>> left_out;
        const std::vector<LeftAlone> leave = whole && sync_back.left_alone && !journal->empty()
                                                 ? sync_back.left_alone(asked, *journal, log)
                                                 : std::vector<LeftAlone>{};
        if (notes != nullptr) notes->left_alone = leave;
        const update_step::ContainerUpdate update =
            without_left_alone(without_held_deletes(asked, sync_back, journal.get(), log), leave, left_out, log);
        // A repair whose every file is left alone (an open conflict, checked
        // again) has nothing to send: the updater is not asked for nothing.
        if (scope == ForwardScope::whole && !asked.initial_sync && carries_nothing(update)) {
            log(common::LogLevel::debug, "nothing to send: sync back left alone all the repair would carry");
            return updater::Outcome::ok();
        }
        if (notes != nullptr) notes->sent = true;
        ignore.add_exact(left_out);
        RequestViews views(update);
        // Only the archived paths beneath a delete, not every one: an initial sync archives 100,000.
        const SyncedPaths deleted(update.delete_paths.begin(), update.delete_paths.end());
        std::vector<std::string> archived_beneath;  // written by the archive's thread, read once it is done
        EntryHooks hooks;
        if (journal)
            hooks.before_entry = [&journal, &deleted, &archived_beneath](const std::string &path) {
                journal->add({path});
                if (!deleted.empty() && covers(deleted, path)) archived_beneath.push_back(path);
            };
        // Before the archive: it is stopped (its writer joined) before this ends.
        ForwardedFiles forwarded(journal, sync_back.comes_back, log);
        forwarded.before_deletes(update.delete_paths);
        forwarded.hook(hooks);
        // A whole update read the container first (left_alone) and must set a
        // recreated or first-started one whole: its writes are not guarded.
        ForwardedFiles *guard = forwarded.active() && !whole ? &forwarded : nullptr;
        BeforeBytesLeaveFn before_bytes_leave;
        if (journal) before_bytes_leave = [&journal] { journal->sync(); };
        ArchiveStream archive(left_out.empty() ? shared : nullptr, update.copy, std::move(ignore), log,
                              std::move(hooks.before_entry), std::move(before_bytes_leave),
                              std::move(hooks.file_digest));
        const lu_update_request request = views.request(update, archive.c_stream(), log, guard);
        updater::Outcome outcome = with_archive_finished(updater->update(request), archive, log);
        if (journal && outcome.kind != updater::Outcome::Kind::infra_failure) {
            // A delete the container kept leaves its path and agreement in the journal.
            std::vector<std::string> deleted_paths = update.delete_paths;
            std::erase_if(deleted_paths, [kept = forwarded.kept_paths()](const std::string &path) {
                return kept.contains(common::clean_path(path));
            });
            note_deletes(*journal, deleted_paths, archived_beneath);
            forwarded.restore_kept_deletes(deleted_paths);
        }
        if (journal) compact_journal(*journal, log);
        metrics::record_container_update(update.live_update, update.via, result_name(outcome.kind),
                                         archive.summary().bytes);
        log::debug("update of " + update.live_update + " via " + update.via + ": " +
                   boost::json::serialize(update_step::encode(outcome)));
        return outcome;
    } catch (const std::exception &e) {
        log(common::LogLevel::error, e.what());
        return updater::Outcome::infra_failure(e.what());
    }
}

}  // namespace liveupdate::host
