// Entry point and C ABI table of the `local` updater.
#include <boost/json.hpp>

#include <chrono>
#include <cerrno>
#include <climits>
#include <cstring>
#include <cstdio>
#include <functional>
#include <cstdlib>
#include <new>
#include <string>
#include <vector>

#include "command_runner.hpp"
#include "container_paths.hpp"
#include "liveupdate/liveupdate.hpp"
#include "safe_delete.hpp"
#include "safe_extract.hpp"

using liveupdate::abi::make_message;
using liveupdate::abi::to_lu_str;

struct lu_updater {
    lu_updater_host host;
    std::string working_dir;  // container path where commands run
};

namespace {

namespace local = liveupdate::local;

constexpr const char *kDefaultWorkingDir = "/app";

void log_line(const lu_updater *u, int32_t level, std::string_view line) {
    if (u->host.log != nullptr) u->host.log(u->host.ctx, level, to_lu_str(line));
}

void set_outcome(lu_update_outcome *out, lu_outcome_kind kind, int exit_code, const std::string &msg) {
    out->kind = kind;
    out->exit_code = exit_code;
    out->message = make_message(msg);
}

int32_t infra(lu_update_outcome *out, const std::string &msg) {
    set_outcome(out, LU_OUTCOME_INFRA_FAILURE, 0, msg);
    return LU_OK;
}

std::string canonical_root(const char *root, std::string &error) {
    if (root == nullptr || *root == '\0') {
        error = "the container has no root folder (not a local container?)";
        return {};
    }
    char resolved[PATH_MAX];
    if (::realpath(root, resolved) == nullptr) {
        error = std::string("container root ") + root + " is not usable: " + std::strerror(errno);
        return {};
    }
    return resolved;
}

std::string amount(const local::ExtractResult &r) {
    char text[96];
    std::snprintf(text, sizeof text, "%llu file(s), %.1f MB", static_cast<unsigned long long>(r.files),
                  static_cast<double>(r.bytes) / 1e6);
    return text;
}

std::string joined(const lu_run_step &run) {
    std::string out;
    for (size_t i = 0; i < run.argc; ++i) {
        if (i > 0) out.push_back(' ');
        out.append(run.argv[i]);
    }
    return out;
}

int32_t restart(const lu_updater *u, const lu_container_ref *container, lu_update_outcome *out) {
    const auto *ext = u->host.get_extension == nullptr
                          ? nullptr
                          : static_cast<const lu_host_local_containers *>(
                                u->host.get_extension(u->host.ctx, LU_HOST_LOCAL_CONTAINERS_ID));
    if (ext == nullptr || ext->restart == nullptr)
        return infra(out, "cannot restart: the host does not supervise local containers");
    char error[512] = {0};
    if (ext->restart(u->host.ctx, container, error, sizeof error) != 0)
        return infra(out, std::string("cannot restart container ") + container->container_name + ": " + error);
    return LU_OK;
}

int32_t do_update(lu_updater *u, const lu_update_request *req, lu_update_outcome *out) {
    std::string error;
    const std::string root = canonical_root(req->container ? req->container->root : nullptr, error);
    if (root.empty()) return infra(out, error);

    for (size_t i = 0; i < req->delete_count; ++i) {
        error = local::delete_under_root(root, req->delete_paths[i]);
        if (!error.empty()) return infra(out, error);
    }
    // A long initial sync says how far it got, every second.
    std::function<void(const local::ExtractResult &)> progress;
    if (req->initial_sync != 0)
        progress = [u](const local::ExtractResult &so_far) {
            log_line(u, LU_LOG_INFO, "Initial sync: " + amount(so_far) + " unpacked so far");
        };
    const auto started = std::chrono::steady_clock::now();
    const local::ExtractResult unpacked = local::extract_under_root(root, req->archive, progress);
    if (!unpacked.error.empty()) return infra(out, unpacked.error);
    if (req->initial_sync != 0) {
        const auto took = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
        char seconds[32];
        std::snprintf(seconds, sizeof seconds, "%.1f", took);
        log_line(u, LU_LOG_INFO, "Initial sync: " + amount(unpacked) + " unpacked in " + seconds + " s");
    }

    const local::RelativePath wd = local::container_path_relative(u->working_dir);
    const std::string working_dir = local::under_root(root, wd.path);
    for (size_t i = 0; i < req->run_count; ++i) {
        const lu_run_step &run = req->runs[i];
        if (!run.echo_off)
            log_line(u, LU_LOG_INFO,
                     "[CMD " + std::to_string(i + 1) + "/" + std::to_string(req->run_count) + "] " + joined(run));
        const std::vector<std::string> argv(run.argv, run.argv + run.argc);
        const local::CommandResult r =
            local::run_command(argv, working_dir, [u](std::string_view line) { log_line(u, LU_LOG_INFO, line); });
        if (!r.started) return infra(out, r.start_error);
        if (r.exit_code != 0) {
            set_outcome(out, LU_OUTCOME_RUN_FAILURE, r.exit_code,
                        "Run step \"" + (run.echo_off ? std::string("(hidden)") : joined(run)) +
                            "\" failed with exit code: " + std::to_string(r.exit_code));
            return LU_OK;
        }
    }
    if (req->restart != 0) return restart(u, req->container, out);
    return LU_OK;
}

int32_t api_create(const lu_updater_host *host, lu_str config_json, lu_updater **out_updater,
                   lu_message *out_error) {
    try {
        std::string working_dir = kDefaultWorkingDir;
        const std::string_view text = liveupdate::abi::to_view(config_json);
        if (!text.empty()) {
            const boost::json::value parsed = boost::json::parse(text);
            const boost::json::object &cfg = parsed.as_object();
            if (const auto *wd = cfg.if_contains("workingDir")) working_dir = std::string(wd->as_string());
        }
        if (!local::container_path_relative(working_dir).refusal.empty())
            throw std::invalid_argument("workingDir \"" + working_dir + "\" must be an absolute container path without \"..\"");
        auto *u = new lu_updater{};
        if (host != nullptr) {
            u->host.struct_size = sizeof(lu_updater_host);
            u->host.ctx = host->ctx;
            u->host.log = host->log;
            if (host->struct_size >= offsetof(lu_updater_host, get_extension) + sizeof(host->get_extension))
                u->host.get_extension = host->get_extension;
        }
        u->working_dir = working_dir;
        *out_updater = u;
        return LU_OK;
    } catch (const std::exception &e) {
        if (out_error) *out_error = make_message(std::string("local updater: bad config: ") + e.what());
        return LU_ERR_INVALID_ARGUMENT;
    }
}

void api_destroy(lu_updater *u) { delete u; }

int32_t api_update(lu_updater *u, const lu_update_request *req, lu_update_outcome *out) {
    if (u == nullptr || req == nullptr || out == nullptr) return LU_ERR_INVALID_ARGUMENT;
    out->struct_size = sizeof(lu_update_outcome);
    set_outcome(out, LU_OUTCOME_OK, 0, "");
    liveupdate::abi::release_message(&out->message);
    try {
        return do_update(u, req, out);
    } catch (const std::exception &e) {
        liveupdate::abi::release_message(&out->message);
        return infra(out, std::string("local updater: ") + e.what());
    }
}

void api_free_message(lu_message *m) { liveupdate::abi::release_message(m); }

const void *api_get_extension(lu_updater *, const char *) { return nullptr; }

const lu_updater_api kApi = {
    sizeof(lu_updater_api), LU_ABI_VERSION, api_create, api_destroy, api_update, api_free_message, api_get_extension,
};

const lu_plugin_info kInfo = {sizeof(lu_plugin_info), 1, 1, "updater", "local", "0.1.0"};

}  // namespace

extern "C" LU_EXPORT const lu_updater_api *lu_updater_plugin_entry(uint32_t abi_version,
                                                                   const lu_plugin_info **out_info) {
    if (out_info != nullptr) *out_info = &kInfo;
    return abi_version == LU_ABI_VERSION ? &kApi : nullptr;
}
