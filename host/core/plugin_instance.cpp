#include "host/core/plugin_instance.hpp"

#include <cstddef>

#include "common/json_fields.hpp"
#include "common/update_step/step_version.hpp"
#include "host/core/host_error.hpp"
#include "host/core/log.hpp"
#include "host/core/plugin_message.hpp"
#include "liveupdate/ext/sync_targets.h"
#include "liveupdate/liveupdate.hpp"

namespace liveupdate::host {
namespace json = boost::json;
using abi::to_lu_str;

namespace {

void log_from_plugin(void *, int32_t level, lu_str line) {
    log::write(common::from_abi(level), "plugin: " + std::string(abi::to_view(line)));
}

std::string rc_text(int32_t rc) {
    switch (rc) {
    case LU_ERR_INVALID_ARGUMENT: return "invalid argument";
    case LU_ERR_NOT_FOUND: return "not found";
    case LU_ERR_STATE: return "call not allowed in this state";
    case LU_ERR_UNSUPPORTED: return "unsupported";
    case LU_ERR_INTERNAL: return "internal error";
    default: return "result code " + std::to_string(rc);
    }
}

std::string where_of(const LiveUpdatePlugin &plugin) { return "plugin " + plugin.file().string(); }

// A step document: a JSON object with "type", of a "stepVersion" this host
// reads and asked for (absent: 1, from plugins older than the field).
json::object parse_step(const LiveUpdatePlugin &plugin, int32_t rc, std::string_view text, const char *what,
                        int max_step_version) {
    if (rc != LU_OK) {
        throw PluginCallError(what, where_of(plugin), rc_text(rc) + ": " + std::string(text));
    }
    json::value step = parse_plugin_json(text, what, where_of(plugin));
    if (!step.is_object() || !step.as_object().contains("type")) {
        throw PluginCallError(what, where_of(plugin),
                              "the step is not an object with \"type\": " + std::string(text.substr(0, 200)));
    }
    try {
        update_step::step_version(step.as_object(), max_step_version);
    } catch (const common::DecodeError &e) {
        throw PluginCallError(what, where_of(plugin), e.reason() + ": use a plugin built with this host's SDK");
    }
    return std::move(step.as_object());
}

}  // namespace

PluginSession::~PluginSession() { plugin_->api().reconcile_end(session_); }

json::object PluginSession::continue_with(const json::value &outcome, common::MicroTime now) {
    const std::string outcome_text = boost::json::serialize(outcome);
    const std::string now_text = now.format();
    PluginMessage step(plugin_->api().free_message);
    int32_t rc = plugin_->api().reconcile_continue(session_, to_lu_str(outcome_text), to_lu_str(now_text), step.out());
    return parse_step(*plugin_, rc, step.view(), "reconcile_continue failed", max_step_version_);
}

PluginInstance::PluginInstance(std::shared_ptr<const LiveUpdatePlugin> plugin, common::MicroTime start_time,
                               int max_step_version)
    : plugin_(std::move(plugin)), start_time_(start_time), max_step_version_(max_step_version) {
    host_.struct_size = sizeof(lu_engine_host);
    host_.ctx = nullptr;
    host_.log = log_from_plugin;
    const std::string options =
        boost::json::serialize(json::object{{"startTime", start_time.format()}, {"maxStepVersion", max_step_version_}});
    PluginMessage error(plugin_->api().free_message);
    int32_t rc = plugin_->api().create(&host_, to_lu_str(options), &engine_, error.out());
    if (rc != LU_OK || engine_ == nullptr) {
        throw PluginCallError("cannot create the liveupdate engine", where_of(*plugin_),
                              rc_text(rc) + (error.view().empty() ? "" : ": " + error.str()));
    }
}

PluginInstance::~PluginInstance() {
    if (engine_ != nullptr) plugin_->api().destroy(engine_);
}

json::object PluginInstance::admission(int32_t rc, std::string_view result, const char *what) const {
    if (rc != LU_OK && rc != LU_ERR_INVALID_ARGUMENT) {
        // The object was neither admitted nor rejected; for the caller it is
        // not stored all the same, with the plugin's error text as the reason.
        return json::object{{"accepted", false},
                            {"errors", json::array{}},
                            {"message", std::string(result.empty() ? rc_text(rc) : result)},
                            {"due", json::array{}}};
    }
    // LU_OK and LU_ERR_INVALID_ARGUMENT come with an admission document.
    json::value parsed;
    try {
        parsed = common::parse_limited(result);
    } catch (const common::DecodeError &) {
        // Said below, with the text itself.
    }
    if (!parsed.is_object() || !parsed.as_object().contains("accepted")) {
        throw PluginCallError(what, where_of(*plugin_),
                              rc_text(rc) + " without an admission document: " + std::string(result.substr(0, 200)));
    }
    return std::move(parsed.as_object());
}

json::object PluginInstance::validate(std::string_view object_json) const {
    PluginMessage result(plugin_->api().free_message);
    int32_t rc = plugin_->api().validate(engine_, to_lu_str(object_json), result.out());
    return admission(rc, result.view(), "validate failed");
}

json::object PluginInstance::upsert(std::string_view object_json) const {
    PluginMessage result(plugin_->api().free_message);
    int32_t rc = plugin_->api().upsert(engine_, to_lu_str(object_json), result.out());
    return admission(rc, result.view(), "upsert failed");
}

json::object PluginInstance::remove(std::string_view kind, std::string_view name) const {
    PluginMessage result(plugin_->api().free_message);
    int32_t rc = plugin_->api().remove(engine_, to_lu_str(kind), to_lu_str(name), result.out());
    if (rc != LU_OK) {
        throw PluginCallError("remove failed", std::string(kind) + "/" + std::string(name),
                              rc_text(rc) + ": " + result.str());
    }
    if (result.view().empty()) return json::object{{"due", json::array{}}};
    json::value parsed = parse_plugin_json(result.view(), "remove failed", where_of(*plugin_));
    if (!parsed.is_object()) return json::object{{"due", json::array{}}};
    return std::move(parsed.as_object());
}

const void *PluginInstance::extension(const char *id) const {
    const lu_liveupdate_api &api = plugin_->api();
    constexpr std::size_t needed = offsetof(lu_liveupdate_api, get_extension) + sizeof(api.get_extension);
    if (api.struct_size < needed || api.get_extension == nullptr || id == nullptr) return nullptr;
    return api.get_extension(engine_, id);
}

std::optional<PluginInstance::Answer> PluginInstance::sync_targets(std::string_view live_update) const {
    const auto *table = static_cast<const lu_sync_targets_extension *>(extension(LU_SYNC_TARGETS_EXTENSION_ID));
    constexpr std::size_t needed = offsetof(lu_sync_targets_extension, sync_targets) + sizeof(table->sync_targets);
    if (table == nullptr || table->struct_size < needed || table->sync_targets == nullptr) return std::nullopt;
    PluginMessage result(plugin_->api().free_message);
    const int32_t rc = table->sync_targets(engine_, to_lu_str(live_update), result.out());
    return Answer{rc, result.str()};
}

std::optional<PluginInstance::Repaired> PluginInstance::container_repaired(std::string_view live_update,
                                                                           std::string_view container_id) const {
    const auto *table = static_cast<const lu_sync_targets_extension *>(extension(LU_SYNC_TARGETS_EXTENSION_ID));
    constexpr std::size_t needed =
        offsetof(lu_sync_targets_extension, container_repaired) + sizeof(table->container_repaired);
    if (table == nullptr || table->struct_size < needed || table->container_repaired == nullptr) return std::nullopt;
    int32_t cleared = 0;
    const int32_t rc = table->container_repaired(engine_, to_lu_str(live_update), to_lu_str(container_id), &cleared);
    return Repaired{rc, rc == LU_OK && cleared != 0};
}

PluginInstance::FirstStep PluginInstance::reconcile_begin(std::string_view live_update, common::MicroTime now) const {
    const std::string now_text = now.format();
    lu_reconcile *session = nullptr;
    PluginMessage step(plugin_->api().free_message);
    int32_t rc =
        plugin_->api().reconcile_begin(engine_, to_lu_str(live_update), to_lu_str(now_text), &session, step.out());
    std::unique_ptr<PluginSession> owner;
    if (session != nullptr) owner = std::make_unique<PluginSession>(plugin_, session, max_step_version_);
    json::object first = parse_step(*plugin_, rc, step.view(), "reconcile_begin failed", max_step_version_);
    if (!owner) {
        throw PluginCallError("reconcile_begin failed", std::string(live_update), "the plugin opened no session");
    }
    return FirstStep{std::move(owner), std::move(first)};
}

namespace {

void take_snapshot(const LiveUpdatePlugin &plugin, lu_engine *engine, PluginMessage &blob) {
    int32_t rc = plugin.api().snapshot(engine, blob.out());
    if (rc != LU_OK) {
        throw PluginCallError("snapshot failed", where_of(plugin), rc_text(rc) + ": " + blob.str());
    }
}

}  // namespace

std::string PluginInstance::snapshot() const {
    PluginMessage blob(plugin_->api().free_message);
    take_snapshot(*plugin_, engine_, blob);
    return blob.str();
}

void PluginInstance::restore_from(const PluginInstance &source) const {
    PluginMessage blob(source.plugin_->api().free_message);
    take_snapshot(*source.plugin_, source.engine_, blob);
    restore(blob.view());
}

void PluginInstance::restore(std::string_view blob) const {
    PluginMessage error(plugin_->api().free_message);
    int32_t rc = plugin_->api().restore(engine_, to_lu_str(blob), error.out());
    if (rc != LU_OK) {
        throw PluginCallError("restore failed", where_of(*plugin_), rc_text(rc) + ": " + error.str());
    }
}

}  // namespace liveupdate::host
