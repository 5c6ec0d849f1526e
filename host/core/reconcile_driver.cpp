#include "host/core/reconcile_driver.hpp"

#include <filesystem>
#include <system_error>

#include "common/json_fields.hpp"
#include "common/update_step/outcome.hpp"
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

// The update objects of an "updates" step, in order, and the lines written before each.
struct Batch {
    std::vector<const json::object *> updates;
    std::vector<const json::array *> logs;
    bool stops_at_infra_failure = true;  // absent (an older plugin): it does
};

Batch batch_of(const json::object &step, const std::string &live_update) {
    const json::value *list = step.if_contains("updates");
    if (list == nullptr || !list->is_array() || list->as_array().empty())
        throw PluginCallError("reconcile of " + live_update + " failed", "plugin step",
                              "an updates step without a non-empty \"updates\" array");
    Batch batch;
    if (const json::value *stops = step.if_contains("stopsAtInfraFailure"); stops != nullptr && stops->is_bool())
        batch.stops_at_infra_failure = stops->as_bool();
    for (const json::value &entry : list->as_array()) {
        const json::value *update = common::member(entry, {"update"});
        if (update == nullptr || !update->is_object())
            throw PluginCallError("reconcile of " + live_update + " failed", "plugin step",
                                  "an updates entry without an \"update\" object");
        const json::value *lines = common::member(entry, {"log"});
        batch.updates.push_back(&update->as_object());
        batch.logs.push_back(lines != nullptr && lines->is_array() ? &lines->as_array() : nullptr);
    }
    return batch;
}

// One reconcile: its result, and how each step's lines, events and updates
// land in it (and in the live log, as they come).
class ReconcileRun {
public:
    ReconcileRun(const std::string &live_update, const ReconcileDriver::LiveLogFn &live_log) : live_log_(live_log) {
        result.live_update = live_update;
    }

    ReconcileResult result;

    void log(common::LogLevel level, std::string_view text) {
        std::lock_guard lock(log_mutex_);
        result.log.push_back(StepLogLine{level, std::string(text)});
        if (live_log_) {
            live_log_(result.live_update, level, text);
        } else {
            log::debug(result.live_update + ": " + std::string(text));
        }
    }

    LogSinkFn sink() {
        return [this](common::LogLevel level, std::string_view text) { log(level, text); };
    }

    void print(const json::array &lines) {
        for (const json::value &line : lines)
            log(level_named(common::string_field(line, {"level"})), common::string_field(line, {"text"}));
    }

    // A step's build entry (Tilt writes it when the build starts, before the
    // update's own lines, "Will copy ..."), its lines and its events, moved
    // out of the step: an initial sync's "started" event lists every file.
    void absorb(json::object &step) {
        json::value *events = step.if_contains("events");
        const bool has_events = events != nullptr && events->is_array();
        if (has_events) {
            for (const json::value &event : events->as_array())
                if (common::string_field(event, {"type"}) == "started") log_build_entry(event);
        }
        if (const json::value *lines = step.if_contains("log"); lines && lines->is_array()) print(lines->as_array());
        if (has_events) {
            for (json::value &event : events->as_array())
                if (event.is_object()) result.events.push_back(std::move(event.as_object()));
        }
    }

    // Runs an "updates" step's updates and prints their lines in the
    // sequential order: each one's own, its updater's, then its outcome's.
    json::object run_batch(const json::object &step, UpdateFanout &fanout, const Executor &executor,
                           PluginSession &session, const ReconcileDriver::Clock &clock) {
        const Batch batch = batch_of(step, result.live_update);
        std::vector<FannedOutUpdate> ran = fanout.run(executor, batch.updates, batch.stops_at_infra_failure);
        result.updates += ran.size();
        json::array outcomes;
        for (const FannedOutUpdate &one : ran) outcomes.push_back(update_step::encode(one.outcome));
        json::object next = session.continue_with(json::object{{"outcomes", std::move(outcomes)}}, clock());
        const json::value *results = next.if_contains("results");
        const log::HeldLines held;  // every update's lines in one write
        for (std::size_t i = 0; i < ran.size(); ++i) {
            if (batch.logs[i] != nullptr) print(*batch.logs[i]);
            for (const StepLogLine &line : ran[i].log) log(line.level, line.text);
            const json::value *folded = results != nullptr && results->is_array() && i < results->as_array().size()
                                            ? common::member(results->as_array()[i], {"log"})
                                            : nullptr;
            if (folded != nullptr && folded->is_array()) print(folded->as_array());
        }
        return next;
    }

private:
    void log_build_entry(const json::value &event) {
        const json::value *changed = common::member(event, {"filesChanged"});
        if (changed == nullptr || !changed->is_array()) return;
        if (std::string line = build_entry_line(changed->as_array(), working_directory()); !line.empty())
            log(common::LogLevel::info, line);
    }

    std::mutex log_mutex_;  // the archive writer thread logs too
    const ReconcileDriver::LiveLogFn &live_log_;
};

}  // namespace

ReconcileDriver::ReconcileDriver(const PluginSlot &plugin_slot, const Executor &executor, JsonObjectStore &store,
                                 Clock clock, LiveLogFn live_log, std::size_t parallel_updates)
    : plugin_slot_(plugin_slot),
      executor_(executor),
      store_(store),
      clock_(std::move(clock)),
      live_log_(std::move(live_log)),
      fanout_(parallel_updates) {}

std::shared_ptr<ReconcileDriver::Lane> ReconcileDriver::lane_of(const std::string &live_update) {
    std::lock_guard lock(locks_mutex_);
    auto &slot = locks_[live_update];
    if (!slot) slot = std::make_shared<Lane>();
    return slot;
}

bool ReconcileDriver::reconcile_waiting(const std::string &live_update) {
    return lane_of(live_update)->waiting.load() > 0;
}

ReconcileResult ReconcileDriver::reconcile(const std::string &live_update) {
    const std::shared_ptr<Lane> lane = lane_of(live_update);
    ++lane->waiting;
    std::lock_guard serial(lane->serial);
    --lane->waiting;

    ReconcileRun run(live_update, live_log_);
    plugin_slot_.with_instance([&](const PluginInstance &instance) {
        PluginInstance::FirstStep opened = instance.reconcile_begin(live_update, clock_());
        json::object step = std::move(opened.step);
        for (;;) {
            run.absorb(step);
            const std::string type = common::string_field(step, {"type"});
            if (type == "done") break;
            if (type == "updates") {
                step = run.run_batch(step, fanout_, executor_, *opened.session, clock_);
                continue;
            }
            if (type != "update") {
                throw PluginCallError("reconcile of " + live_update + " failed", "plugin step",
                                      "unknown step type \"" + type + "\"");
            }
            const json::value *update = step.if_contains("update");
            if (update == nullptr || !update->is_object()) {
                throw PluginCallError("reconcile of " + live_update + " failed", "plugin step",
                                      "an update step without an \"update\" object");
            }
            updater::Outcome outcome = executor_.execute(update->as_object(), run.sink());
            ++run.result.updates;
            step = opened.session->continue_with(update_step::encode(outcome), clock_());
        }
        const json::value *status = step.if_contains("status");
        run.result.status = status != nullptr ? *status : json::value(nullptr);
        const json::value *changed = step.if_contains("statusChanged");
        run.result.status_changed = changed != nullptr && changed->is_bool() && changed->as_bool();
    });
    ReconcileResult &result = run.result;
    if (result.status_changed && !result.status.is_null()) {
        result.status_written = store_.write_status(ObjectKey{"LiveUpdate", live_update}, result.status);
    }
    return std::move(result);
}

}  // namespace liveupdate::host
