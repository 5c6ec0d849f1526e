// Entry point of the `local` updater: a folder on this machine stands for the
// container's "/" (through liveupdate/updater.hpp for the C ABI).
#include <boost/json.hpp>

#include <cerrno>
#include <chrono>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "common/json_fields.hpp"
#include "liveupdate/updater.hpp"
#include "updaters/local/command_runner.hpp"
#include "updaters/local/container_digest.hpp"
#include "updaters/local/container_paths.hpp"
#include "updaters/local/found_content.hpp"
#include "updaters/local/left_temporaries.hpp"
#include "updaters/local/safe_delete.hpp"
#include "updaters/local/safe_extract.hpp"
#include "updaters/shared/update_messages.hpp"

namespace {

namespace local = liveupdate::local;
namespace lu = liveupdate::updater;
namespace common = liveupdate::common;

// Where commands run when neither the settings nor the host say.
constexpr const char *kDefaultWorkingDir = "/app";

std::string canonical_root(const std::string &root, std::string &error) {
    if (root.empty()) {
        error = "the container has no root folder (not a local container?)";
        return {};
    }
    char resolved[PATH_MAX];
    if (::realpath(root.c_str(), resolved) == nullptr) {
        error = "container root " + root + " is not usable: " + std::strerror(errno);
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

std::string joined(const lu::RunStep &run) {
    std::string out;
    for (size_t i = 0; i < run.argv.size(); ++i) out += (i > 0 ? " " : "") + run.argv[i];
    return out;
}

// safe_extract reads a C stream: the request's reader behind one.
lu_archive_stream c_stream(const lu::ArchiveReader &reader) {
    if (!reader) return {nullptr, nullptr};
    return {const_cast<lu::ArchiveReader *>(&reader), [](void *ctx, void *buffer, size_t capacity) {
                return (*static_cast<const lu::ArchiveReader *>(ctx))(buffer, capacity);
            }};
}

// The settings' workingDir, if they set one.
std::optional<std::string> working_dir_from(std::string_view config_json) {
    if (config_json.empty()) return std::nullopt;
    const boost::json::value parsed = common::parse_limited(config_json);
    if (common::member(parsed, {"workingDir"}) == nullptr) return std::nullopt;
    std::string working_dir = common::string_field(parsed, {"workingDir"});
    if (!local::container_path_relative(working_dir).refusal.empty())
        throw std::invalid_argument("workingDir \"" + working_dir +
                                    "\" must be an absolute container path without \"..\"");
    return working_dir;
}

// "" when a delete of container_path may go on: no guard, nothing expected,
// nothing there (both sides agree it is gone, as lu-agent's delete does), or
// the path holds what the guard expects; else what it holds (the app's). A
// refused path is left to delete_under_root, which says why.
std::string unexpected_at(const std::string &root, const std::string &container_path, const lu::ForwardGuard &guard) {
    if (!guard) return "";
    const local::RelativePath rel = local::container_path_relative(container_path);
    if (!rel.refusal.empty() || rel.path.empty()) return "";
    const lu::ExpectedContent expected = guard.expected(container_path);
    if (expected.kind == lu::ExpectedContent::Kind::any) return "";
    const local::FoundContent found = local::found_beneath(root, rel.path);
    if (found.kind == local::FoundContent::Kind::absent) return "";
    return local::unexpected_content(expected, found);
}

class LocalPlugin {
public:
    static constexpr const char *name = "local";
    static constexpr const char *version = "0.1.0";

    LocalPlugin(std::string_view config_json, const lu::Host &host) : host_(host) {
        try {
            working_dir_ = working_dir_from(config_json);
        } catch (const std::exception &e) {
            throw std::invalid_argument(std::string("local updater: bad config: ") + e.what());
        }
    }

    lu::Outcome update(const lu::Request &req) const {
        std::string error;
        const std::string root = canonical_root(req.container.root, error);
        if (root.empty()) return lu::Outcome::infra_failure(error);
        sweep_left_temporaries(root, req);

        for (const std::string &path : req.delete_paths) {
            if (const std::string found = unexpected_at(root, path, req.guard); !found.empty()) {
                req.guard.kept(path, found);
                continue;
            }
            error = local::delete_under_root(root, path, req.sync_roots);
            if (!error.empty()) return lu::Outcome::infra_failure(error);
        }
        if (lu::Outcome unpacked = unpack(root, req); unpacked.kind != lu::Outcome::Kind::ok) return unpacked;

        // As `docker exec` does: the container's environment and working
        // directory, unless the settings name a working directory.
        const std::optional<lu::ContainerProcess> process = host_.local_containers().process(req.container);
        const std::string container_dir = working_dir_ ? *working_dir_
                                          : process    ? process->working_dir
                                                       : std::string(kDefaultWorkingDir);
        const local::RelativePath wd = local::container_path_relative(container_dir);
        if (!wd.refusal.empty())
            return lu::Outcome::infra_failure("working directory " + container_dir + ": " + wd.refusal);
        const std::string working_dir = local::under_root(root, wd.path);
        const std::vector<std::pair<std::string, std::string>> no_env;
        for (size_t i = 0; i < req.runs.size(); ++i) {
            const lu::RunStep &run = req.runs[i];
            if (!run.echo_off) req.log(LU_LOG_INFO, liveupdate::updaters::run_step_line(i, req.runs.size(), run.argv));
            const local::CommandResult r =
                local::run_command(run.argv, working_dir, process ? process->env : no_env,
                                   [&req](std::string_view line) { req.log(LU_LOG_INFO, line); });
            if (!r.started) return lu::Outcome::infra_failure(r.start_error);
            if (r.exit_code != 0)
                return lu::Outcome::run_failure(r.exit_code,
                                                "Run step \"" + (run.echo_off ? std::string("(hidden)") : joined(run)) +
                                                    "\" failed with exit code: " + std::to_string(r.exit_code));
        }
        return req.restart ? restart(req.container) : lu::Outcome::ok();
    }

    // LU_DIGEST_EXTENSION_ID: `lu-host verify` on local containers.
    const void *extension(std::string_view id) const {
        return id == LU_DIGEST_EXTENSION_ID ? &local::digest_extension() : nullptr;
    }

private:
    // What an lu-host killed mid-write left in the folder goes before this
    // updater first writes there; an error is not the update's failure.
    void sweep_left_temporaries(const std::string &root, const lu::Request &req) const {
        const std::vector<std::string> due = swept_.to_sweep(root, req.sync_roots, req.initial_sync);
        if (due.empty()) return;
        const liveupdate::common::LeftFiles left = local::remove_left_temporaries(root, due);
        for (const std::string &path : left.removed)
            req.log(LU_LOG_INFO, "Removed " + path + ": a temporary file an earlier lu-host left half written");
        for (const std::string &why : left.errors)
            req.log(LU_LOG_WARN, "Looking for temporary files an earlier lu-host left: " + why);
    }

    lu::Outcome unpack(const std::string &root, const lu::Request &req) const {
        // A long initial sync says how far it got, every second.
        std::function<void(const local::ExtractResult &)> progress;
        if (req.initial_sync)
            progress = [&req](const local::ExtractResult &so_far) {
                req.log(LU_LOG_INFO, "Initial sync: " + amount(so_far) + " unpacked so far");
            };
        const auto started = std::chrono::steady_clock::now();
        const local::ExtractResult unpacked =
            local::extract_under_root(root, c_stream(req.archive), req.sync_roots, req.guard, progress);
        if (!unpacked.error.empty()) return lu::Outcome::infra_failure(unpacked.error);
        if (req.initial_sync) {
            const auto took = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
            char seconds[32];
            std::snprintf(seconds, sizeof seconds, "%.1f", took);
            req.log(LU_LOG_INFO, "Initial sync: " + amount(unpacked) + " unpacked in " + seconds + " s");
        }
        return lu::Outcome::ok();
    }

    lu::Outcome restart(const lu::ContainerRef &container) const {
        const lu::LocalContainers containers = host_.local_containers();
        if (!containers)
            return lu::Outcome::infra_failure("cannot restart: the host does not supervise local containers");
        const std::string error = containers.restart(container);
        if (!error.empty())
            return lu::Outcome::infra_failure("cannot restart container " + container.name + ": " + error);
        return lu::Outcome::ok();
    }

    lu::Host host_;
    std::optional<std::string> working_dir_;  // from the settings: where commands run
    mutable local::SweptFolders swept_;       // mutable: update() is const, and concurrent
};

}  // namespace

extern "C" LU_EXPORT const lu_updater_api *lu_updater_plugin_entry(uint32_t abi_version,
                                                                   const lu_plugin_info **out_info) {
    return lu::entry<LocalPlugin>(abi_version, out_info);
}
