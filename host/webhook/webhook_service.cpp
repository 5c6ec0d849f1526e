#include "host/webhook/webhook_service.hpp"

#include <chrono>

#include "common/micro_time.hpp"
#include "host/core/log.hpp"
#include "host/webhook/webhook_routes.hpp"

namespace liveupdate::host::webhook {

WebhookService::WebhookService(const ServiceOptions &options) {
    PluginLoadOptions load{.private_copy = true};
    if (options.probe_plugins) load.prober = "/proc/self/exe";
    plugin_slot_ = std::make_unique<PluginSlot>(options.plugin,
                                                common::MicroTime::from_system(std::chrono::system_clock::now()), load);
    reload::HotReloadOptions reload_options;
    reload_options.liveupdate_plugin = options.plugin;
    reload_options.load = load;
    hot_reload_ =
        std::make_unique<reload::HotReloader>(*plugin_slot_, gate_, updaters_, nullptr, std::move(reload_options));
    hot_reload_->start();
    tls_ = std::make_shared<TlsFiles>(options.cert, options.key);
    PluginSlot *plugin_slot = plugin_slot_.get();
    const Validator validate = [plugin_slot](std::string_view object_json) {
        return plugin_slot->with_instance(
            [&](const PluginInstance &instance) { return instance.validate(object_json); });
    };
    server_ = std::make_unique<WebhookServer>(
        options.server, tls_,
        [validate, inject = options.inject](const HttpRequest &request) { return route(request, validate, inject); });
    log::info("webhook: serving https://" + options.server.address + ":" + std::to_string(server_->port()) +
              "/validate with plugin " + options.plugin.string() + " and /mutate " +
              (options.inject.agent_image.empty() ? "without an agent image (pods are not injected)"
                                                  : "injecting lu-agent from " + options.inject.agent_image));
}

// The server goes first: no request reaches an engine being torn down.
WebhookService::~WebhookService() {
    server_.reset();
    hot_reload_.reset();
}

}  // namespace liveupdate::host::webhook
