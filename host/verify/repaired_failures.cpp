#include "host/verify/repaired_failures.hpp"

#include <exception>
#include <optional>

namespace liveupdate::host::verify {

bool clear_repaired_failures(const LiveUpdateReport &report, const host::PluginSlot &plugin_slot,
                             const host::LogSinkFn &log) {
    if (!report.error.empty()) return false;
    bool cleared = false;
    for (const ContainerReport &c : report.containers) {
        if (!c.clean() || c.id.empty()) continue;
        try {
            const auto answer = plugin_slot.with_instance(
                [&](const host::PluginInstance &instance) { return instance.container_repaired(report.name, c.id); });
            if (!answer) return cleared;  // the plugin keeps no failure it could be told of
            if (answer->cleared) {
                log(common::LogLevel::info, "verify: " + c.container +
                                                " equals the sources again: the failure of its last update is "
                                                "cleared, live updates resume");
                cleared = true;
            } else if (answer->rc != LU_OK) {
                log(common::LogLevel::warn, "verify: " + c.container +
                                                ": the plugin could not clear its failure "
                                                "(result code " +
                                                std::to_string(answer->rc) + ")");
            }
        } catch (const std::exception &e) {
            log(common::LogLevel::warn,
                "verify: " + c.container + ": cannot tell the plugin it was repaired: " + e.what());
        }
    }
    return cleared;
}

}  // namespace liveupdate::host::verify
