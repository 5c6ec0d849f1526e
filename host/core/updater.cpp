#include "host/core/updater.hpp"

#include <cstddef>

#include "host/core/host_error.hpp"
#include "host/core/plugin_message.hpp"
#include "liveupdate/liveupdate.hpp"

namespace liveupdate::host {

Updater::Updater(std::shared_ptr<const UpdaterPlugin> plugin, std::shared_ptr<UpdaterHostServices> services,
                 std::string_view config_json)
    : plugin_(std::move(plugin)), services_(std::move(services)) {
    PluginMessage error(plugin_->api().free_message);
    int32_t rc = plugin_->api().create(services_->c_host(), abi::to_lu_str(config_json), &updater_, error.out());
    if (rc != LU_OK || updater_ == nullptr) {
        throw PluginCallError("cannot create updater " + plugin_->identity().name, plugin_->file().string(),
                              error.view().empty() ? "result code " + std::to_string(rc) : error.str());
    }
}

Updater::~Updater() {
    if (updater_ != nullptr) plugin_->api().destroy(updater_);
}

updater::Outcome Updater::update(const lu_update_request &request) const {
    lu_update_outcome outcome{};
    outcome.struct_size = sizeof(lu_update_outcome);
    int32_t rc = plugin_->api().update(updater_, &request, &outcome);
    PluginMessage message(plugin_->api().free_message);
    *message.out() = outcome.message;
    if (rc != LU_OK) {
        return updater::Outcome::infra_failure("updater " + plugin_->identity().name + " failed (result code " +
                                               std::to_string(rc) + ")" +
                                               (message.view().empty() ? "" : ": " + message.str()));
    }
    if (std::optional<updater::Outcome> known = updater::to_outcome(outcome, message.str())) return *known;
    return updater::Outcome::infra_failure("updater " + plugin_->identity().name + " returned outcome kind " +
                                           std::to_string(outcome.kind));
}

std::optional<std::string> Updater::prepare(const updater::ContainerRef &container) const {
    const lu_updater_api &api = plugin_->api();
    constexpr std::size_t needed = offsetof(lu_updater_api, prepare) + sizeof(api.prepare);
    if (api.struct_size < needed || api.prepare == nullptr) return std::nullopt;
    PluginMessage error(api.free_message);
    const lu_container_ref ref = updater::to_lu_container_ref(container);
    const int32_t rc = api.prepare(updater_, &ref, error.out());
    if (rc == LU_OK) return std::nullopt;
    return error.view().empty() ? "result code " + std::to_string(rc) : error.str();
}

const void *Updater::extension(const char *id) const {
    const lu_updater_api &api = plugin_->api();
    constexpr std::size_t needed = offsetof(lu_updater_api, get_extension) + sizeof(api.get_extension);
    if (api.struct_size < needed || api.get_extension == nullptr) return nullptr;
    return api.get_extension(updater_, id);
}

}  // namespace liveupdate::host
