#include "host/core/executor.hpp"

#include <exception>
#include <string>
#include <vector>

#include "common/json_fields.hpp"
#include "host/core/host_error.hpp"
#include "liveupdate/liveupdate.hpp"

namespace liveupdate::host {
namespace json = boost::json;

namespace {

constexpr const char *kBadStep = "malformed update step";
// A shared archive larger than this is streamed by each update instead: memory stays flat for an initial sync.
constexpr std::size_t kSharedArchiveMax = std::size_t{1} << 20;

// An array member, empty when absent or null; DecodeError when another type.
const json::array &array_or_empty(const json::object &object, std::string_view key, const std::string &path) {
    static const json::array empty;
    const json::array *found = common::array_field(object, key, path);
    return found != nullptr ? *found : empty;
}

std::string string_element(const json::value &value, const std::string &path) {
    if (!value.is_string()) throw common::DecodeError(path, "expected string");
    return std::string(value.as_string());
}

// The update step in C-friendly storage; the lu_update_request points into it.
struct PreparedUpdate {
    std::string live_update, via;
    std::string container_id, container_name, pod_name, namespace_name, root;
    std::vector<ArchiveMapping> copies;
    std::vector<std::string> deletes;
    std::vector<std::string> sync_roots;
    std::vector<std::vector<std::string>> run_args;
    std::vector<bool> echo_off;
    struct RunOptions {
        std::string user, working_dir;
        std::vector<std::string> env;
        bool privileged = false;
    };
    std::vector<RunOptions> run_options;
    bool restart = false;
    bool initial_sync = false;

    explicit PreparedUpdate(const json::object &update) {
        try {
            read(update);
        } catch (const common::DecodeError &e) {
            throw HostError(kBadStep, e.field(), e.reason());
        }
    }

private:
    void read(const json::object &update) {
        live_update = common::text_at(update, "liveUpdate");
        via = common::text_at(update, "via");
        if (via.empty()) throw HostError(kBadStep, "via", "missing");
        if (const json::value *container = update.if_contains("container")) {
            container_id = common::text_at(*container, {"containerID"});
            container_name = common::text_at(*container, {"containerName"});
            pod_name = common::text_at(*container, {"podName"});
            namespace_name = common::text_at(*container, {"namespace"});
            root = common::text_at(*container, {"root"});
        }
        const json::array &copy_list = array_or_empty(update, "copy", "");
        for (std::size_t i = 0; i < copy_list.size(); ++i) {
            const std::string field = common::index("copy", i);
            const json::value *local = common::value_at(copy_list[i], {"local"});
            const json::value *in_container = common::value_at(copy_list[i], {"container"});
            if (local == nullptr || in_container == nullptr)
                throw HostError(kBadStep, field, "needs local and container");
            copies.push_back(ArchiveMapping{string_element(*local, field + ".local"),
                                            string_element(*in_container, field + ".container")});
        }
        const json::array &delete_list = array_or_empty(update, "delete", "");
        for (std::size_t i = 0; i < delete_list.size(); ++i)
            deletes.push_back(string_element(delete_list[i], common::index("delete", i)));
        // Absent from an older plugin: the updaters then follow each path down to itself.
        sync_roots = common::string_array_field(update, "syncRoots", "");
        const json::array &run_list = array_or_empty(update, "runs", "");
        for (std::size_t i = 0; i < run_list.size(); ++i) {
            const std::string field = common::index("runs", i);
            const json::object &run = common::expect_object(run_list[i], field);
            run_args.push_back(common::string_array_field(run, "args", field));
            echo_off.push_back(common::bool_field(run, "echoOff", field));
            run_options.push_back(RunOptions{common::text_at(run, "user"), common::text_at(run, "workingDir"),
                                             common::string_array_field(run, "env", field),
                                             common::bool_field(run, "privileged", field)});
        }
        restart = common::bool_field(update, "restart", "");
        initial_sync = common::bool_field(update, "initialSync", "");
    }
};

// Once the updater deleted them, the deleted paths leave the record; what the
// archive put back beneath them (a path whose kind changed) stays.
void note_deletes(SyncedJournal &journal, const std::vector<std::string> &deletes,
                  const std::vector<std::string> &archived_beneath) {
    if (deletes.empty()) return;
    journal.remove(deletes);
    journal.add(archived_beneath);
}

// The C views of a prepared update that an lu_update_request points into;
// they live as long as this does.
struct RequestViews {
    explicit RequestViews(const PreparedUpdate &prepared)
        : container{sizeof(lu_container_ref),  prepared.container_id.c_str(),   prepared.container_name.c_str(),
                    prepared.pod_name.c_str(), prepared.namespace_name.c_str(), prepared.root.c_str()} {
        for (const ArchiveMapping &copy : prepared.copies)
            mappings.push_back(lu_path_mapping{copy.local.c_str(), copy.container.c_str()});
        for (const std::string &path : prepared.deletes) delete_paths.push_back(path.c_str());
        for (const std::string &root : prepared.sync_roots) sync_roots.push_back(root.c_str());
        for (const auto &args : prepared.run_args) argvs.push_back(c_strings(args));
        for (std::size_t i = 0; i < argvs.size(); ++i)
            runs.push_back(lu_run_step{argvs[i].data(), argvs[i].size(), prepared.echo_off[i] ? 1 : 0});
        for (const auto &o : prepared.run_options) envs.push_back(c_strings(o.env));
        for (std::size_t i = 0; i < prepared.run_options.size(); ++i) {
            const auto &o = prepared.run_options[i];
            run_options.push_back(lu_run_options{sizeof(lu_run_options), o.user.c_str(), o.working_dir.c_str(),
                                                 envs[i].data(), envs[i].size(), o.privileged ? 1 : 0});
        }
    }

    static std::vector<const char *> c_strings(const std::vector<std::string> &strings) {
        std::vector<const char *> out;
        out.reserve(strings.size());
        for (const std::string &s : strings) out.push_back(s.c_str());
        return out;
    }

    lu_update_request request(const PreparedUpdate &prepared, lu_archive_stream archive, const LogSinkFn &log) {
        lu_update_request r{};
        r.struct_size = sizeof(lu_update_request);
        r.live_update = prepared.live_update.c_str();
        r.via = prepared.via.c_str();
        r.container = &container;
        r.copies = mappings.data();
        r.copy_count = mappings.size();
        r.archive = archive;
        r.delete_paths = delete_paths.data();
        r.delete_count = delete_paths.size();
        r.runs = runs.data();
        r.run_count = runs.size();
        r.restart = prepared.restart ? 1 : 0;
        r.initial_sync = prepared.initial_sync ? 1 : 0;
        r.run_options = run_options.empty() ? nullptr : run_options.data();
        r.log = &log_to_sink;
        r.log_ctx = const_cast<LogSinkFn *>(&log);
        r.sync_roots = sync_roots.data();
        r.sync_root_count = sync_roots.size();
        r.archive_rewind = &ArchiveStream::rewind_fn;
        return r;
    }

    lu_container_ref container;
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
UpdateOutcome with_archive_finished(UpdateOutcome outcome, ArchiveStream &archive, const LogSinkFn &log) {
    const bool updater_failed = outcome.kind == UpdateOutcome::Kind::infra_failure ||
                                outcome.kind == UpdateOutcome::Kind::container_not_running;
    if (auto incomplete = archive.finish(!updater_failed)) {
        if (updater_failed) {
            outcome.message += outcome.message.empty() ? *incomplete : " (" + *incomplete + ")";
        } else {
            log(common::LogLevel::error, *incomplete);
            std::string message = *incomplete;
            if (outcome.kind == UpdateOutcome::Kind::run_failure) message += "; " + outcome.message;
            outcome = UpdateOutcome::infra_failure(message);
        }
    }
    return outcome;
}

// Between updates, where a rewrite delays no byte: the update stands
// whatever happens here, as the journal is still whole when it fails.
void compact_record(SyncedJournal &journal, const LogSinkFn &log) {
    try {
        journal.compact_if_due();
    } catch (const std::exception &e) {
        log(common::LogLevel::warn, std::string("the synced record keeps its dead lines for now: ") + e.what());
    }
}

}  // namespace

std::shared_ptr<const PrebuiltArchive> Executor::shared_archive(
    const std::vector<const json::object *> &updates) const {
    if (updates.size() < 2) return nullptr;
    const json::value *copy = updates[0]->if_contains("copy");
    const json::value *filter = updates[0]->if_contains("filter");
    if (copy == nullptr || !copy->is_array() || copy->as_array().empty()) return nullptr;
    for (const json::object *update : updates) {
        const json::value *its_copy = update->if_contains("copy");
        const json::value *its_filter = update->if_contains("filter");
        if (its_copy == nullptr || *its_copy != *copy) return nullptr;
        if ((its_filter == nullptr) != (filter == nullptr) || (filter != nullptr && *its_filter != *filter))
            return nullptr;
    }
    try {
        const PreparedUpdate prepared(*updates[0]);
        const common::IgnoreSet ignore = filter != nullptr ? ignore_set_from_json(*filter) : common::IgnoreSet{};
        return prebuild_archive(prepared.copies, ignore, kSharedArchiveMax);
    } catch (const std::exception &) {
        return nullptr;  // a malformed step: each update fails saying why
    }
}

UpdateOutcome Executor::execute(const json::object &update, const LogSinkFn &log,
                                const std::shared_ptr<const PrebuiltArchive> &shared) const {
    try {
        const PreparedUpdate prepared(update);
        const json::value *filter = update.if_contains("filter");
        common::IgnoreSet ignore = filter != nullptr ? ignore_set_from_json(*filter) : common::IgnoreSet{};

        std::shared_ptr<const Updater> updater = updaters_.find(prepared.via);
        if (!updater) return UpdateOutcome::infra_failure("no updater serves \"" + prepared.via + "\"");
        RequestViews views(prepared);

        std::shared_ptr<SyncedJournal> journal;
        if (records_ != nullptr)
            journal = records_->journal(
                SyncedKey::of(prepared.live_update, prepared.via, prepared.container_id, prepared.root));
        // Only the archived paths beneath a delete, not every one: an initial sync archives 100,000.
        const SyncedPaths deleted(prepared.deletes.begin(), prepared.deletes.end());
        std::vector<std::string> archived_beneath;  // written by the archive's thread, read once it is done
        BeforeEntryFn before_entry;
        if (journal)
            before_entry = [&journal, &deleted, &archived_beneath](const std::string &path) {
                journal->add({path});
                if (!deleted.empty() && covers(deleted, path)) archived_beneath.push_back(path);
            };
        BeforeBytesLeaveFn before_bytes_leave;
        if (journal) before_bytes_leave = [&journal] { journal->sync(); };
        ArchiveStream archive(shared, prepared.copies, std::move(ignore), log, std::move(before_entry),
                              std::move(before_bytes_leave));
        const lu_update_request request = views.request(prepared, archive.c_stream(), log);
        UpdateOutcome outcome = with_archive_finished(updater->update(request), archive, log);
        if (journal && outcome.kind != UpdateOutcome::Kind::infra_failure)
            note_deletes(*journal, prepared.deletes, archived_beneath);
        if (journal) compact_record(*journal, log);
        log::debug("update of " + prepared.live_update + " via " + prepared.via + ": " +
                   boost::json::serialize(outcome.to_json()));
        return outcome;
    } catch (const std::exception &e) {
        log(common::LogLevel::error, e.what());
        return UpdateOutcome::infra_failure(e.what());
    }
}

}  // namespace liveupdate::host
