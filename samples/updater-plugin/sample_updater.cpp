// A sample updater plugin for third parties: it logs every call it gets and
// applies updates to a folder, as the `local` updater does. Settings:
//   {"workingDir": "/app",          where commands run (container path; default "/")
//    "callLog": "/tmp/calls.jsonl"} one JSON line per call appended there (optional)
// Build it against the installed SDK (see CMakeLists.txt) and choose it in the
// updater configuration of `lu-host up --config FILE`:
//   {"updaters": {"local": {"plugin": "/path/to/libupdater_sample.so", "settings": {...}}}}
#include <atomic>
#include <cstdio>
#include <filesystem>
#include <mutex>
#include <new>
#include <string>

#include <boost/json.hpp>

#include "folder_update.hpp"
#include "liveupdate/liveupdate.hpp"

namespace json = boost::json;
using liveupdate::abi::make_message;
using liveupdate::abi::to_lu_str;

struct lu_updater {
    lu_updater_host host{};
    std::string working_dir = "/";
    std::string call_log;
    std::mutex call_log_mutex;
    std::atomic<unsigned long> updates{0};
};

namespace {

void log(const lu_updater &u, int32_t level, std::string_view line) {
    if (u.host.log != nullptr) u.host.log(u.host.ctx, level, to_lu_str(line));
}

void record_call(lu_updater &u, const json::object &call) {
    if (u.call_log.empty()) return;
    const std::string line = json::serialize(call) + "\n";
    std::lock_guard lock(u.call_log_mutex);
    if (std::FILE *file = std::fopen(u.call_log.c_str(), "a")) {
        std::fwrite(line.data(), 1, line.size(), file);
        std::fclose(file);
    }
}

std::string text(const char *s) { return s != nullptr ? s : ""; }

int32_t create(const lu_updater_host *host, lu_str settings_json, lu_updater **out, lu_message *out_error) {
    auto fail = [&](const std::string &why) {
        if (out_error != nullptr) *out_error = make_message("sample updater: " + why);
        return LU_ERR_INVALID_ARGUMENT;
    };
    boost::system::error_code ec;
    const std::string_view text_in = liveupdate::abi::to_view(settings_json);
    const json::value settings = json::parse(text_in.empty() ? std::string_view("{}") : text_in, ec);
    if (ec || !settings.is_object()) return fail("settings must be a JSON object");
    auto *u = new (std::nothrow) lu_updater;
    if (u == nullptr) return fail("out of memory");
    for (const auto &[key, value] : settings.as_object()) {
        if ((key != "workingDir" && key != "callLog") || !value.is_string()) {
            delete u;
            return fail("unknown or non-string setting \"" + std::string(key) + "\" (workingDir, callLog)");
        }
        (key == "workingDir" ? u->working_dir : u->call_log) = std::string(value.as_string());
    }
    if (host != nullptr) {
        u->host.struct_size = sizeof(lu_updater_host);
        u->host.ctx = host->ctx;
        u->host.log = host->log;
        // A host older than get_extension has a shorter table: check before reading it.
        if (host->struct_size >= offsetof(lu_updater_host, get_extension) + sizeof host->get_extension) {
            u->host.get_extension = host->get_extension;
        }
    }
    log(*u, LU_LOG_INFO, "sample updater: created (workingDir " + u->working_dir + ")");
    record_call(*u, {{"call", "create"}, {"settings", settings}});
    *out = u;
    return LU_OK;
}

void destroy(lu_updater *u) {
    if (u == nullptr) return;
    record_call(*u, {{"call", "destroy"}, {"updates", u->updates.load()}});
    delete u;
}

lu_update_outcome restart(const lu_updater &u, const lu_container_ref &container) {
    lu_update_outcome outcome{sizeof(lu_update_outcome), LU_OUTCOME_OK, 0, {nullptr, 0}};
    const auto *local = u.host.get_extension == nullptr
                            ? nullptr
                            : static_cast<const lu_host_local_containers *>(
                                  u.host.get_extension(u.host.ctx, LU_HOST_LOCAL_CONTAINERS_ID));
    char error[256] = {0};
    if (local == nullptr) {
        outcome.kind = LU_OUTCOME_INFRA_FAILURE;
        outcome.message = make_message("sample updater: the host cannot restart containers");
    } else if (local->restart(u.host.ctx, &container, error, sizeof error) != 0) {
        outcome.kind = LU_OUTCOME_INFRA_FAILURE;
        outcome.message = make_message(std::string("sample updater: restart failed: ") + error);
    }
    return outcome;
}

int32_t update(lu_updater *u, const lu_update_request *request, lu_update_outcome *out) {
    if (u == nullptr || request == nullptr || out == nullptr || request->container == nullptr) {
        return LU_ERR_INVALID_ARGUMENT;
    }
    const unsigned long number = ++u->updates;
    const lu_container_ref &container = *request->container;
    json::array copies, deletes;
    for (size_t i = 0; i < request->copy_count; ++i) copies.emplace_back(text(request->copies[i].container_path));
    for (size_t i = 0; i < request->delete_count; ++i) deletes.emplace_back(text(request->delete_paths[i]));
    log(*u, LU_LOG_INFO,
        "sample updater: update #" + std::to_string(number) + " of " + text(request->live_update) + " via " +
            text(request->via) + " in " + text(container.container_name) + ": " + std::to_string(copies.size()) +
            " to copy, " + std::to_string(deletes.size()) + " to delete, " + std::to_string(request->run_count) +
            " to run");

    sample::FolderOutcome result;
    std::error_code ec;
    const std::filesystem::path root = std::filesystem::canonical(text(container.root), ec);
    if (text(container.root).empty() || ec) {
        result = {LU_OUTCOME_INFRA_FAILURE, 0, "sample updater: no usable container folder \"" + text(container.root) + "\""};
    } else {
        result = sample::apply_to_folder(root.string(), u->working_dir, *request,
                                         [u](std::string_view line) { log(*u, LU_LOG_INFO, line); });
    }
    *out = lu_update_outcome{sizeof(lu_update_outcome), result.kind, result.exit_code, make_message(result.message)};
    if (result.kind == LU_OUTCOME_OK && request->restart != 0) {
        liveupdate::abi::release_message(&out->message);
        *out = restart(*u, container);
    }
    static constexpr const char *kOutcomes[] = {"ok", "runFailure", "infraFailure"};
    record_call(*u, {{"call", "update"},
                     {"number", number},
                     {"liveUpdate", text(request->live_update)},
                     {"via", text(request->via)},
                     {"container", text(container.container_name)},
                     {"copy", std::move(copies)},
                     {"delete", std::move(deletes)},
                     {"runs", request->run_count},
                     {"restart", request->restart != 0},
                     {"initialSync", request->initial_sync != 0},
                     {"outcome", kOutcomes[out->kind]}});
    return LU_OK;
}

void free_message(lu_message *message) { liveupdate::abi::release_message(message); }

const void *get_extension(lu_updater *, const char *) { return nullptr; }

const lu_updater_api kApi = {sizeof(lu_updater_api), LU_ABI_VERSION, create, destroy, update, free_message,
                             get_extension};
const lu_plugin_info kInfo = {sizeof(lu_plugin_info), LU_ABI_VERSION, LU_ABI_VERSION, "updater", "sample", "0.1.0"};

}  // namespace

extern "C" LU_EXPORT const lu_updater_api *lu_updater_plugin_entry(uint32_t abi_version,
                                                                   const lu_plugin_info **out_info) {
    if (out_info != nullptr) *out_info = &kInfo;
    return abi_version == LU_ABI_VERSION ? &kApi : nullptr;
}
