#include "host/core/reconcile_driver.hpp"

#include <filesystem>
#include <system_error>

#include "common/json_fields.hpp"
#include "host/core/build_entry.hpp"
#include "host/core/host_error.hpp"

namespace liveupdate::host {
namespace json = boost::json;

namespace {

common::LogLevel level_named(std::string_view name) {
    return common::parse_log_level(name).value_or(common::LogLevel::info);
}

// As Tilt does, asked each time: "" when it cannot be known (paths stay absolute).
std::string working_directory() {
    std::error_code ec;
    std::string dir = std::filesystem::current_path(ec).string();
    return ec ? std::string() : dir;
}

}  // namespace

ReconcileDriver::ReconcileDriver(const EngineSlot &engine, const Executor &executor, ObjectStore &store, Clock clock,
                                 LiveLogFn live_log)
    : engine_(engine), executor_(executor), store_(store), clock_(std::move(clock)), live_log_(std::move(live_log)) {}

std::shared_ptr<std::mutex> ReconcileDriver::lock_for(const std::string &live_update) {
    std::lock_guard lock(locks_mutex_);
    auto &slot = locks_[live_update];
    if (!slot) slot = std::make_shared<std::mutex>();
    return slot;
}

ReconcileResult ReconcileDriver::reconcile(const std::string &live_update) {
    auto one_at_a_time = lock_for(live_update);
    std::lock_guard serial(*one_at_a_time);

    ReconcileResult result;
    result.live_update = live_update;
    std::mutex log_mutex;  // the archive writer thread logs too
    const LogSinkFn log = [&](common::LogLevel level, std::string_view text) {
        std::lock_guard lock(log_mutex);
        result.log.push_back(LogLine{level, std::string(text)});
        if (live_log_) {
            live_log_(live_update, level, text);
        } else {
            log::debug(live_update + ": " + std::string(text));
        }
    };
    auto absorb = [&](const json::object &step) {
        // Tilt writes the build entry when the build starts, before the
        // update's own lines ("Will copy ...").
        if (const json::value *events = step.if_contains("events"); events && events->is_array()) {
            for (const json::value &event : events->as_array()) {
                if (common::text_at(event, {"type"}) != "started") continue;
                std::vector<std::string> files;
                if (const json::value *changed = common::value_at(event, {"filesChanged"});
                    changed && changed->is_array())
                    for (const json::value &file : changed->as_array())
                        if (file.is_string()) files.emplace_back(file.as_string());
                if (std::string line = build_entry_line(files, working_directory()); !line.empty())
                    log(common::LogLevel::info, line);
            }
        }
        if (const json::value *lines = step.if_contains("log"); lines && lines->is_array()) {
            for (const json::value &line : lines->as_array()) {
                log(level_named(common::text_at(line, {"level"})), common::text_at(line, {"text"}));
            }
        }
        if (const json::value *events = step.if_contains("events"); events && events->is_array()) {
            for (const json::value &event : events->as_array()) {
                if (event.is_object()) result.events.push_back(event.as_object());
            }
        }
    };

    engine_.with_engine([&](const Engine &engine) {
        Engine::Begun begun = engine.reconcile_begin(live_update, clock_());
        json::object step = std::move(begun.step);
        for (;;) {
            absorb(step);
            const std::string type = common::text_at(step, "type");
            if (type == "done") break;
            if (type != "update") {
                throw PluginCallError("reconcile of " + live_update + " failed", "plugin step",
                                      "unknown step type \"" + type + "\"");
            }
            const json::value *update = step.if_contains("update");
            if (update == nullptr || !update->is_object()) {
                throw PluginCallError("reconcile of " + live_update + " failed", "plugin step",
                                      "an update step without an \"update\" object");
            }
            UpdateOutcome outcome = executor_.execute(update->as_object(), log);
            ++result.updates;
            step = begun.session->continue_with(outcome.to_json(), clock_());
        }
        const json::value *status = step.if_contains("status");
        result.status = status != nullptr ? *status : json::value(nullptr);
        const json::value *changed = step.if_contains("statusChanged");
        result.status_changed = changed != nullptr && changed->is_bool() && changed->as_bool();
    });
    if (result.status_changed && !result.status.is_null()) {
        result.status_written = store_.write_status(ObjectKey{"LiveUpdate", live_update}, result.status);
    }
    return result;
}

}  // namespace liveupdate::host
