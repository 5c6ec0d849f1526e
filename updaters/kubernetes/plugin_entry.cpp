// The C ABI face of the kubernetes updater (lu_updater_api).
#include <algorithm>
#include <cstring>
#include <exception>
#include <memory>
#include <string>

#include "kubectl_updater.hpp"
#include "liveupdate/liveupdate.hpp"
#include "liveupdate/updater_plugin.h"

struct lu_updater {
    lu_updater_host host{};
    liveupdate::kubernetes::KubectlConfig config;
};

namespace {

using liveupdate::abi::make_message;
using liveupdate::abi::to_lu_str;
using liveupdate::abi::to_view;
namespace k8s = liveupdate::kubernetes;

std::string text_or_empty(const char *text) { return text == nullptr ? std::string() : std::string(text); }

int32_t create_updater(const lu_updater_host *host, lu_str config_json, lu_updater **out_updater, lu_message *out_error) {
    if (out_updater == nullptr) return LU_ERR_INVALID_ARGUMENT;
    *out_updater = nullptr;
    try {
        auto updater = std::make_unique<lu_updater>();
        if (host != nullptr) std::memcpy(&updater->host, host, std::min<std::size_t>(host->struct_size, sizeof(lu_updater_host)));
        updater->config = k8s::parse_kubectl_config(to_view(config_json));
        *out_updater = updater.release();
        return LU_OK;
    } catch (const std::invalid_argument &e) {
        if (out_error != nullptr) *out_error = make_message(e.what());
        return LU_ERR_INVALID_ARGUMENT;
    } catch (const std::exception &e) {
        if (out_error != nullptr) *out_error = make_message(std::string("kubernetes updater: ") + e.what());
        return LU_ERR_INTERNAL;
    }
}

void destroy_updater(lu_updater *updater) { delete updater; }

int32_t run_update(lu_updater *updater, const lu_update_request *request, lu_update_outcome *out) {
    if (updater == nullptr || request == nullptr || out == nullptr) return LU_ERR_INVALID_ARGUMENT;
    try {
        k8s::PodUpdate u;
        if (request->container != nullptr)
            u.target = {text_or_empty(request->container->namespace_name), text_or_empty(request->container->pod_name),
                        text_or_empty(request->container->container_name)};
        u.has_copies = request->copy_count > 0;
        if (request->archive.read != nullptr)
            u.archive = [s = request->archive](void *buffer, std::size_t capacity) { return s.read(s.ctx, buffer, capacity); };
        for (std::size_t i = 0; i < request->delete_count; ++i) u.delete_paths.push_back(text_or_empty(request->delete_paths[i]));
        for (std::size_t i = 0; i < request->run_count; ++i) {
            k8s::PodUpdate::Run run;
            for (std::size_t a = 0; a < request->runs[i].argc; ++a) run.argv.push_back(text_or_empty(request->runs[i].argv[a]));
            run.echo_off = request->runs[i].echo_off != 0;
            u.runs.push_back(std::move(run));
        }
        u.restart = request->restart != 0;
        const auto result = k8s::update_pod_container(updater->config, u, [updater](int level, std::string_view line) {
            if (updater->host.log != nullptr) updater->host.log(updater->host.ctx, level, to_lu_str(line));
        });
        out->kind = result.kind == k8s::PodUpdateResult::Kind::ok            ? LU_OUTCOME_OK
                    : result.kind == k8s::PodUpdateResult::Kind::run_failure ? LU_OUTCOME_RUN_FAILURE
                                                                             : LU_OUTCOME_INFRA_FAILURE;
        out->exit_code = result.exit_code;
        out->message = make_message(result.message);
    } catch (const std::exception &e) {
        out->kind = LU_OUTCOME_INFRA_FAILURE;
        out->exit_code = 0;
        out->message = make_message(std::string("kubernetes updater: ") + e.what());
    }
    return LU_OK;
}

void free_message(lu_message *message) { liveupdate::abi::release_message(message); }

const void *get_extension(lu_updater *, const char *) { return nullptr; }

constexpr lu_updater_api kApi{sizeof(lu_updater_api), LU_ABI_VERSION, create_updater, destroy_updater, run_update,
                              free_message, get_extension};
constexpr lu_plugin_info kInfo{sizeof(lu_plugin_info), LU_ABI_VERSION, LU_ABI_VERSION, "updater", "kubernetes", "0.1.0"};

}  // namespace

extern "C" LU_EXPORT const lu_updater_api *lu_updater_plugin_entry(uint32_t abi_version, const lu_plugin_info **out_info) {
    if (out_info != nullptr) *out_info = &kInfo;
    return abi_version == LU_ABI_VERSION ? &kApi : nullptr;
}
