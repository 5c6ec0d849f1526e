#include "host/verify/verify_targets.hpp"

#include <exception>

#include "common/json_fields.hpp"
#include "liveupdate/abi.h"
#include "liveupdate/ext/sync_targets.h"

namespace liveupdate::host::verify {
namespace json = boost::json;

namespace {

// The targets document of liveupdate/ext/sync_targets.h; throws common::DecodeError naming the field.
void read_document(std::string_view text, LiveUpdateTargets &out) {
    const json::value doc = common::parse_limited(text);
    const json::object &o = common::expect_object(doc, "");
    out.via = common::string_field(o, "via", "");
    if (const json::array *containers = common::array_field(o, "containers", "")) {
        for (std::size_t i = 0; i < containers->size(); ++i) {
            const std::string p = common::index("containers", i);
            const json::object &c = common::expect_object((*containers)[i], p);
            out.containers.push_back(
                {{common::string_field(c, "containerID", p), common::string_field(c, "containerName", p),
                  common::string_field(c, "podName", p), common::string_field(c, "namespace", p),
                  common::string_field(c, "root", p)},
                 common::string_field(c, "display", p)});
        }
    }
    if (const json::array *targets = common::array_field(o, "targets", "")) {
        for (std::size_t i = 0; i < targets->size(); ++i) {
            const std::string p = common::index("targets", i);
            const json::object &t = common::expect_object((*targets)[i], p);
            out.targets.push_back({common::string_field(t, "local", p), common::string_field(t, "container", p)});
        }
    }
    if (const json::value *filter = common::member(o, "filter"))
        out.filter = common::parse_ignore_defs(*filter, "filter");
}

}  // namespace

LiveUpdateTargets targets_of_answer(const std::string &live_update, int32_t rc, std::string_view text) {
    LiveUpdateTargets out;
    out.name = live_update;
    if (rc == LU_ERR_NOT_FOUND) {
        out.problem = "LiveUpdate \"" + live_update + "\" not found (`lu-host get liveupdates` lists them)";
        return out;
    }
    if (rc != LU_OK) {
        out.problem = text.empty()
                          ? "LiveUpdate \"" + live_update + "\": the plugin cannot tell its targets (result code " +
                                std::to_string(rc) + ")"
                          : std::string(text);
        return out;
    }
    try {
        read_document(text, out);
    } catch (const std::exception &e) {
        LiveUpdateTargets failed;
        failed.name = live_update;
        failed.problem = "LiveUpdate \"" + live_update + "\": the plugin's sync targets are malformed: " + e.what();
        return failed;
    }
    return out;
}

LiveUpdateTargets resolve_targets(const std::string &live_update, const host::PluginSlot &plugin_slot) {
    try {
        const auto answer = plugin_slot.with_instance(
            [&](const host::PluginInstance &instance) { return instance.sync_targets(live_update); });
        if (!answer) {
            LiveUpdateTargets out;
            out.name = live_update;
            out.problem = "the liveupdate plugin (" + plugin_slot.identity().name +
                          ") cannot tell sync targets: it has no " + LU_SYNC_TARGETS_EXTENSION_ID + " extension";
            return out;
        }
        return targets_of_answer(live_update, answer->rc, answer->text);
    } catch (const std::exception &e) {
        LiveUpdateTargets out;
        out.name = live_update;
        out.problem = "LiveUpdate \"" + live_update + "\": " + e.what();
        return out;
    }
}

std::vector<std::string> other_targets(const std::vector<LiveUpdateTargets> &all, const LiveUpdateTargets &self,
                                       const RunningContainer &container, const updater::CopyMapping &own) {
    std::vector<std::string> out;
    for (const LiveUpdateTargets &lu : all) {
        if (lu.via != self.via) continue;
        bool shares = false;
        for (const RunningContainer &c : lu.containers) shares = shares || c.ref.id == container.ref.id;
        if (!shares) continue;
        for (const updater::CopyMapping &t : lu.targets)
            if (!(lu.name == self.name && t == own)) out.push_back(t.container_path);
    }
    return out;
}

}  // namespace liveupdate::host::verify
