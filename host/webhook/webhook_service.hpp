// `lu-host webhook` running: the liveupdate plugin's engine (hot-reloaded by
// host/reload, as the daemon's: a rebuilt plugin serves the next request, a
// broken one is refused and the old one keeps answering), the certificate
// files and the HTTPS server answering with them.
#pragma once

#include <filesystem>
#include <memory>

#include "host/core/plugin_slot.hpp"
#include "host/core/updater_registry.hpp"
#include "host/reload/hot_reloader.hpp"
#include "host/reload/quiesce_gate.hpp"
#include "host/webhook/pod_injection.hpp"
#include "host/webhook/tls_files.hpp"
#include "host/webhook/webhook_server.hpp"

namespace liveupdate::host::webhook {

struct ServiceOptions {
    ServerOptions server;
    std::filesystem::path cert, key;
    std::filesystem::path plugin;
    InjectionOptions inject;    // what POST /mutate puts into pods
    bool probe_plugins = true;  // load new plugin files in a child first (plugin_probe.hpp)
};

class WebhookService {
public:
    // Throws PluginLoadError (exit 3), std::runtime_error (certificate, address).
    explicit WebhookService(const ServiceOptions &options);
    WebhookService(const WebhookService &) = delete;
    WebhookService &operator=(const WebhookService &) = delete;
    ~WebhookService();

    unsigned short port() const { return server_->port(); }

private:
    std::unique_ptr<PluginSlot> plugin_slot_;
    reload::QuiesceGate gate_;
    UpdaterRegistry updaters_;  // none: the webhook only judges
    std::unique_ptr<reload::HotReloader> hot_reload_;
    std::shared_ptr<TlsFiles> tls_;
    std::unique_ptr<WebhookServer> server_;
};

}  // namespace liveupdate::host::webhook
