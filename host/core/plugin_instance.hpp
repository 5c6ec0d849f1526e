// The host's handle on one instance of a loaded liveupdate plugin: the
// plugin's engine (lu_engine) it created. The engine is thread-safe as the ABI
// promises; this wrapper adds no state.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include <boost/json.hpp>

#include "common/micro_time.hpp"
#include "host/core/plugin_loader.hpp"
#include "liveupdate/liveupdate_plugin.h"

namespace liveupdate::host {

// One open reconcile of one LiveUpdate; ending it early abandons its updates.
class PluginSession {
public:
    PluginSession(std::shared_ptr<const LiveUpdatePlugin> plugin, lu_reconcile *session, int max_step_version)
        : plugin_(std::move(plugin)), session_(session), max_step_version_(max_step_version) {}
    PluginSession(const PluginSession &) = delete;
    PluginSession &operator=(const PluginSession &) = delete;
    ~PluginSession();

    // Reports the outcome of the last "update" step (the outcomes of the last
    // "updates" step); returns the next step.
    boost::json::object continue_with(const boost::json::value &outcome, common::MicroTime now);

private:
    std::shared_ptr<const LiveUpdatePlugin> plugin_;
    lu_reconcile *session_;
    int max_step_version_;
};

class PluginInstance {
public:
    // options: {"startTime": start_time, "maxStepVersion": max_step_version}
    // (1: the plugin hands out one update at a time). Throws PluginCallError.
    PluginInstance(std::shared_ptr<const LiveUpdatePlugin> plugin, common::MicroTime start_time,
                   int max_step_version = LU_STEP_VERSION);
    PluginInstance(const PluginInstance &) = delete;
    PluginInstance &operator=(const PluginInstance &) = delete;
    ~PluginInstance();

    // Admission results: {"accepted", "kind", "name", "errors", "message", "due"}.
    // A malformed object is a rejection (accepted false with the plugin's message),
    // not an exception; so is a call the plugin failed (its error text as message).
    // Throws PluginCallError when the plugin breaks liveupdate_plugin.h's contract.
    boost::json::object validate(std::string_view object_json) const;
    boost::json::object upsert(std::string_view object_json) const;
    // {"due": [...]}.
    boost::json::object remove(std::string_view kind, std::string_view name) const;

    // A reconcile opened: its session and the first step.
    struct FirstStep {
        std::unique_ptr<PluginSession> session;
        boost::json::object step;
    };
    FirstStep reconcile_begin(std::string_view live_update, common::MicroTime now) const;

    std::string snapshot() const;
    void restore(std::string_view blob) const;
    // Restores source's snapshot straight from the buffer its plugin returned:
    // at a thousand LiveUpdates that is megabytes not copied inside the reload's pause.
    void restore_from(const PluginInstance &source) const;

    // The engine's extension table for id (liveupdate/ext/), or nullptr,
    // also when the plugin's table predates get_extension.
    const void *extension(const char *id) const;

    // A LiveUpdate's targets through liveupdate/ext/sync_targets.h: the result
    // code and the plugin's text (the targets document, or why not); nullopt
    // when the plugin does not offer that extension.
    struct Answer {
        int32_t rc;
        std::string text;
    };
    std::optional<Answer> sync_targets(std::string_view live_update) const;

    // Tells the plugin a repair brought the container to the sources
    // (liveupdate/ext/sync_targets.h container_repaired): the result code and
    // whether a failure was cleared; nullopt when the plugin's table has no such member.
    struct Repaired {
        int32_t rc;
        bool cleared;
    };
    std::optional<Repaired> container_repaired(std::string_view live_update, std::string_view container_id) const;

    const LiveUpdatePlugin &plugin() const { return *plugin_; }
    common::MicroTime start_time() const { return start_time_; }
    int max_step_version() const { return max_step_version_; }

private:
    boost::json::object admission(int32_t rc, std::string_view result, const char *what) const;

    std::shared_ptr<const LiveUpdatePlugin> plugin_;
    common::MicroTime start_time_;
    int max_step_version_;
    lu_engine_host host_{};
    lu_engine *engine_ = nullptr;
};

}  // namespace liveupdate::host
