// Hot reload of the liveupdate plugin: load the new file from a private copy
// and check its ABI (service continues meanwhile), quiesce the reconcile
// workers, move the engine's state into an engine of the new plugin, swap,
// reopen, and unload the old plugin. Any failure leaves the old plugin in
// service and says why.
#pragma once

#include <chrono>
#include <filesystem>

#include "core/engine_slot.hpp"
#include "reload/quiesce_gate.hpp"

namespace liveupdate::reload {

struct EngineReloadTimes {
    std::chrono::microseconds load{};   // copy aside, load, ABI check (service goes on)
    std::chrono::microseconds drain{};  // reconciles in flight finishing (new ones held)
    std::chrono::microseconds swap{};   // new engine, snapshot, restore, swap (gate closed)
    std::chrono::microseconds pause{};  // drain + swap: how long new reconciles were held
    std::chrono::microseconds total{};  // load + pause + unloading the old plugin
};

class EngineReloader {
public:
    EngineReloader(host::EngineSlot &slot, QuiesceGate &gate) : slot_(slot), gate_(gate) {}

    // Throws host::PluginLoadError (load, ABI) or host::PluginCallError (create,
    // snapshot, restore); the old plugin then stays in service.
    EngineReloadTimes reload(const std::filesystem::path &file);

private:
    host::EngineSlot &slot_;
    QuiesceGate &gate_;
};

}  // namespace liveupdate::reload
