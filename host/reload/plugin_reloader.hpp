// Hot reload of the liveupdate plugin: load the new file from a private copy
// and check its ABI (service continues meanwhile), quiesce the reconcile
// workers, move the engine's state into an engine of the new plugin, swap,
// reopen, and unload the old plugin. Any failure leaves the old plugin in
// service and says why.
#pragma once

#include <chrono>
#include <filesystem>
#include <future>

#include "host/core/plugin_slot.hpp"
#include "host/reload/quiesce_gate.hpp"

namespace liveupdate::host::reload {

struct PluginReloadTimes {
    std::chrono::microseconds load{};   // copy aside, load, ABI check, new engine (service goes on)
    std::chrono::microseconds drain{};  // reconciles in flight finishing (new ones held)
    std::chrono::microseconds swap{};   // snapshot, restore, swap (gate closed)
    std::chrono::microseconds pause{};  // drain + swap: how long new reconciles were held
    std::chrono::microseconds total{};  // load + pause: until the new plugin is in service
    // CPU time of the reloading thread during the pause: the part of it the
    // machine's load does not stretch (the snapshot's and restore's second threads not counted).
    std::chrono::microseconds pause_cpu{};
};

class PluginReloader {
public:
    PluginReloader(host::PluginSlot &slot, QuiesceGate &gate, host::PluginLoadOptions load = {.private_copy = true})
        : slot_(slot), gate_(gate), load_(std::move(load)) {}
    PluginReloader(const PluginReloader &) = delete;
    PluginReloader &operator=(const PluginReloader &) = delete;
    ~PluginReloader() { wait_retired(); }

    // Throws host::PluginLoadError (load, ABI) or host::PluginCallError (create,
    // snapshot, restore); the old plugin then stays in service. The replaced
    // engine is destroyed and its plugin unloaded afterwards on a thread of its
    // own: at a thousand LiveUpdates that takes 10-15 ms nobody waits for.
    PluginReloadTimes reload(const std::filesystem::path &file);

    // Waits until the engine replaced last is destroyed and its plugin
    // unloaded; returns how long that took (zero when nothing was retiring).
    std::chrono::microseconds wait_retired();

private:
    host::PluginSlot &slot_;
    QuiesceGate &gate_;
    host::PluginLoadOptions load_;
    std::future<std::chrono::microseconds> retiring_;
};

}  // namespace liveupdate::host::reload
