#include "host/core/executor.hpp"

#include <exception>
#include <string>
#include <vector>

#include "host/core/host_error.hpp"
#include "host/core/json_text.hpp"
#include "liveupdate/liveupdate.hpp"

namespace liveupdate::host {
namespace json = boost::json;

namespace {

constexpr const char *kBadStep = "malformed update step";

std::string require_string(const json::value &value, const std::string &field) {
    if (!value.is_string()) throw HostError(kBadStep, field, "not a string");
    return std::string(value.as_string());
}

const json::array &array_member(const json::object &object, const char *key) {
    static const json::array empty;
    const json::value *member = object.if_contains(key);
    if (member == nullptr || member->is_null()) return empty;
    if (!member->is_array()) throw HostError(kBadStep, key, "not an array");
    return member->as_array();
}

bool bool_member(const json::object &object, const char *key) {
    const json::value *member = object.if_contains(key);
    if (member == nullptr || member->is_null()) return false;
    if (!member->is_bool()) throw HostError(kBadStep, key, "not a boolean");
    return member->as_bool();
}

// The update step in C-friendly storage; the lu_update_request points into it.
struct PreparedUpdate {
    std::string live_update, via;
    std::string container_id, container_name, pod_name, namespace_name, root;
    std::vector<CopyMapping> copies;
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
        live_update = string_member(update, "liveUpdate");
        via = string_member(update, "via");
        if (via.empty()) throw HostError(kBadStep, "via", "missing");
        if (const json::value *container = update.if_contains("container")) {
            container_id = string_member(*container, "containerID");
            container_name = string_member(*container, "containerName");
            pod_name = string_member(*container, "podName");
            namespace_name = string_member(*container, "namespace");
            root = string_member(*container, "root");
        }
        const json::array &copy_list = array_member(update, "copy");
        for (std::size_t i = 0; i < copy_list.size(); ++i) {
            const std::string field = "copy[" + std::to_string(i) + "]";
            const json::value *local = find_member(copy_list[i], "local");
            const json::value *in_container = find_member(copy_list[i], "container");
            if (local == nullptr || in_container == nullptr)
                throw HostError(kBadStep, field, "needs local and container");
            copies.push_back(CopyMapping{require_string(*local, field + ".local"),
                                         require_string(*in_container, field + ".container")});
        }
        const json::array &delete_list = array_member(update, "delete");
        for (std::size_t i = 0; i < delete_list.size(); ++i) {
            deletes.push_back(require_string(delete_list[i], "delete[" + std::to_string(i) + "]"));
        }
        // Absent from an older plugin: the updaters then follow each path down to itself.
        if (update.contains("syncRoots")) {
            const json::array &root_list = array_member(update, "syncRoots");
            for (std::size_t i = 0; i < root_list.size(); ++i)
                sync_roots.push_back(require_string(root_list[i], "syncRoots[" + std::to_string(i) + "]"));
        }
        const json::array &run_list = array_member(update, "runs");
        for (std::size_t i = 0; i < run_list.size(); ++i) {
            const std::string field = "runs[" + std::to_string(i) + "]";
            if (!run_list[i].is_object()) throw HostError(kBadStep, field, "not an object");
            std::vector<std::string> args;
            const json::array &arg_list = array_member(run_list[i].as_object(), "args");
            for (std::size_t j = 0; j < arg_list.size(); ++j) {
                args.push_back(require_string(arg_list[j], field + ".args[" + std::to_string(j) + "]"));
            }
            run_args.push_back(std::move(args));
            echo_off.push_back(bool_member(run_list[i].as_object(), "echoOff"));
            const json::object &run = run_list[i].as_object();
            RunOptions options{
                string_member(run, "user"), string_member(run, "workingDir"), {}, bool_member(run, "privileged")};
            if (run.contains("env")) {
                const json::array &env = array_member(run, "env");
                for (std::size_t j = 0; j < env.size(); ++j)
                    options.env.push_back(require_string(env[j], field + ".env[" + std::to_string(j) + "]"));
            }
            run_options.push_back(std::move(options));
        }
        restart = bool_member(update, "restart");
        initial_sync = bool_member(update, "initialSync");
    }
};

// Once the updater deleted them, the deleted paths leave the record; what the
// archive put back beneath them (a path whose kind changed) stays.
void note_deletes(SyncedJournal &journal, const std::vector<std::string> &deletes,
                  const std::vector<std::string> &archived) {
    if (deletes.empty()) return;
    journal.remove(deletes);
    SyncedPaths deleted(deletes.begin(), deletes.end());
    std::vector<std::string> back;
    for (const auto &p : archived)
        if (covers(deleted, p)) back.push_back(p);
    journal.add(back);
}

}  // namespace

UpdateOutcome Executor::execute(const json::object &update, const LogSinkFn &log) const {
    try {
        const PreparedUpdate prepared(update);
        const json::value *filter = update.if_contains("filter");
        common::IgnoreSet ignore = filter != nullptr ? ignore_set_from_json(*filter) : common::IgnoreSet{};

        std::shared_ptr<const Updater> updater = updaters_.find(prepared.via);
        if (!updater) return UpdateOutcome::infra_failure("no updater serves \"" + prepared.via + "\"");

        lu_container_ref container{sizeof(lu_container_ref),        prepared.container_id.c_str(),
                                   prepared.container_name.c_str(), prepared.pod_name.c_str(),
                                   prepared.namespace_name.c_str(), prepared.root.c_str()};
        std::vector<lu_path_mapping> mappings;
        for (const CopyMapping &copy : prepared.copies) {
            mappings.push_back(lu_path_mapping{copy.local.c_str(), copy.container.c_str()});
        }
        std::vector<const char *> delete_paths;
        for (const std::string &path : prepared.deletes) delete_paths.push_back(path.c_str());
        std::vector<const char *> sync_roots;
        for (const std::string &root : prepared.sync_roots) sync_roots.push_back(root.c_str());
        std::vector<std::vector<const char *>> argvs;
        std::vector<lu_run_step> runs;
        for (const auto &args : prepared.run_args) {
            std::vector<const char *> argv;
            argv.reserve(args.size());
            for (const std::string &arg : args) argv.push_back(arg.c_str());
            argvs.push_back(std::move(argv));
        }
        for (std::size_t i = 0; i < argvs.size(); ++i) {
            runs.push_back(lu_run_step{argvs[i].data(), argvs[i].size(), prepared.echo_off[i] ? 1 : 0});
        }
        std::vector<std::vector<const char *>> envs;
        std::vector<lu_run_options> run_options;
        for (const auto &o : prepared.run_options) {
            std::vector<const char *> env;
            for (const std::string &e : o.env) env.push_back(e.c_str());
            envs.push_back(std::move(env));
        }
        for (std::size_t i = 0; i < prepared.run_options.size(); ++i) {
            const auto &o = prepared.run_options[i];
            run_options.push_back(lu_run_options{sizeof(lu_run_options), o.user.c_str(), o.working_dir.c_str(),
                                                 envs[i].data(), envs[i].size(), o.privileged ? 1 : 0});
        }

        std::shared_ptr<SyncedJournal> journal;
        if (records_ != nullptr)
            journal = records_->journal(
                SyncedKey::of(prepared.live_update, prepared.via, prepared.container_id, prepared.root));
        std::vector<std::string> archived;  // written by the archive's thread, read once it is done
        BeforeEntryFn before_entry;
        if (journal)
            before_entry = [&journal, &archived](const std::string &path) {
                journal->add({path});
                archived.push_back(path);
            };
        BeforeBytesLeaveFn before_bytes_leave;
        if (journal) before_bytes_leave = [&journal] { journal->sync(); };
        ArchiveStream archive(prepared.copies, std::move(ignore), log, std::move(before_entry),
                              std::move(before_bytes_leave));
        lu_update_request request{};
        request.struct_size = sizeof(lu_update_request);
        request.live_update = prepared.live_update.c_str();
        request.via = prepared.via.c_str();
        request.container = &container;
        request.copies = mappings.data();
        request.copy_count = mappings.size();
        request.archive = archive.c_stream();
        request.delete_paths = delete_paths.data();
        request.delete_count = delete_paths.size();
        request.runs = runs.data();
        request.run_count = runs.size();
        request.restart = prepared.restart ? 1 : 0;
        request.initial_sync = prepared.initial_sync ? 1 : 0;
        request.run_options = run_options.empty() ? nullptr : run_options.data();
        request.log = &log_to_sink;
        request.log_ctx = const_cast<LogSinkFn *>(&log);
        request.sync_roots = sync_roots.data();
        request.sync_root_count = sync_roots.size();
        request.archive_rewind = &ArchiveStream::rewind_fn;

        UpdateOutcome outcome = updater->update(request);
        // Whatever the updater says, an archive that is not complete is not a
        // success: the update fails naming what did not arrive.
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
        if (journal && outcome.kind != UpdateOutcome::Kind::infra_failure)
            note_deletes(*journal, prepared.deletes, archived);
        log::debug("update of " + prepared.live_update + " via " + prepared.via + ": " +
                   to_json_text(outcome.to_json()));
        return outcome;
    } catch (const std::exception &e) {
        log(common::LogLevel::error, e.what());
        return UpdateOutcome::infra_failure(e.what());
    }
}

}  // namespace liveupdate::host
