// The C ABI face of the docker updater (lu_updater_api).
#include <algorithm>
#include <cstring>
#include <exception>
#include <memory>
#include <new>
#include <string>

#include "docker_updater.hpp"
#include "liveupdate/liveupdate.hpp"
#include "liveupdate/updater_plugin.h"

struct lu_updater {
    lu_updater_host host{};
    std::unique_ptr<liveupdate::docker::DockerUpdater> updater;
};

namespace {

using liveupdate::abi::make_message;
using liveupdate::abi::to_lu_str;
using liveupdate::abi::to_view;
namespace dk = liveupdate::docker;

std::string text_or_empty(const char *text) { return text == nullptr ? std::string() : std::string(text); }

int32_t create_updater(const lu_updater_host *host, lu_str config_json, lu_updater **out_updater,
                       lu_message *out_error) {
    if (out_updater == nullptr) return LU_ERR_INVALID_ARGUMENT;
    *out_updater = nullptr;
    try {
        auto updater = std::make_unique<lu_updater>();
        if (host != nullptr) {
            const auto size = std::min<std::size_t>(host->struct_size, sizeof(lu_updater_host));
            std::memcpy(&updater->host, host, size);
        }
        updater->updater = std::make_unique<dk::DockerUpdater>(dk::parse_updater_config(to_view(config_json)));
        *out_updater = updater.release();
        return LU_OK;
    } catch (const std::invalid_argument &e) {
        if (out_error != nullptr) *out_error = make_message(e.what());
        return LU_ERR_INVALID_ARGUMENT;
    } catch (const std::exception &e) {
        if (out_error != nullptr) *out_error = make_message(std::string("docker updater: ") + e.what());
        return LU_ERR_INTERNAL;
    }
}

void destroy_updater(lu_updater *updater) { delete updater; }

dk::ContainerUpdate to_update(const lu_update_request &request) {
    dk::ContainerUpdate update;
    if (request.container != nullptr) {
        update.container_id = text_or_empty(request.container->container_id);
        update.container_name = text_or_empty(request.container->container_name);
    }
    for (std::size_t i = 0; i < request.copy_count; ++i)
        update.copies.push_back({text_or_empty(request.copies[i].local_path), text_or_empty(request.copies[i].container_path)});
    if (request.archive.read != nullptr) {
        update.archive = [stream = request.archive](void *buffer, std::size_t capacity) {
            return stream.read(stream.ctx, buffer, capacity);
        };
    }
    for (std::size_t i = 0; i < request.delete_count; ++i) update.delete_paths.push_back(text_or_empty(request.delete_paths[i]));
    for (std::size_t i = 0; i < request.run_count; ++i) {
        dk::RunCommand run;
        for (std::size_t a = 0; a < request.runs[i].argc; ++a) run.argv.push_back(text_or_empty(request.runs[i].argv[a]));
        run.echo_off = request.runs[i].echo_off != 0;
        update.runs.push_back(std::move(run));
    }
    update.restart = request.restart != 0;
    return update;
}

int32_t run_update(lu_updater *updater, const lu_update_request *request, lu_update_outcome *out) {
    if (updater == nullptr || request == nullptr || out == nullptr) return LU_ERR_INVALID_ARGUMENT;
    const dk::LogFn log = [updater](dk::LogLevel level, std::string_view line) {
        if (updater->host.log == nullptr) return;
        updater->host.log(updater->host.ctx, static_cast<int32_t>(level), to_lu_str(line));
    };
    try {
        const auto result = updater->updater->update(to_update(*request), log);
        out->kind = result.kind == dk::UpdateResult::Kind::ok            ? LU_OUTCOME_OK
                    : result.kind == dk::UpdateResult::Kind::run_failure ? LU_OUTCOME_RUN_FAILURE
                                                                          : LU_OUTCOME_INFRA_FAILURE;
        out->exit_code = result.exit_code;
        out->message = make_message(result.message);
    } catch (const std::exception &e) {
        out->kind = LU_OUTCOME_INFRA_FAILURE;
        out->exit_code = 0;
        out->message = make_message(std::string("docker updater: ") + e.what());
    }
    return LU_OK;
}

void free_message(lu_message *message) { liveupdate::abi::release_message(message); }

const void *get_extension(lu_updater *, const char *) { return nullptr; }

constexpr lu_updater_api kApi{sizeof(lu_updater_api), LU_ABI_VERSION, create_updater, destroy_updater, run_update,
                              free_message, get_extension};
constexpr lu_plugin_info kInfo{sizeof(lu_plugin_info), LU_ABI_VERSION, LU_ABI_VERSION, "updater", "docker", "0.1.0"};

}  // namespace

extern "C" LU_EXPORT const lu_updater_api *lu_updater_plugin_entry(uint32_t abi_version, const lu_plugin_info **out_info) {
    if (out_info != nullptr) *out_info = &kInfo;
    return abi_version == LU_ABI_VERSION ? &kApi : nullptr;
}
