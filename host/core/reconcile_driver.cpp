#include "host/core/reconcile_driver.hpp"

#include <filesystem>
#include <optional>
#include <string>
#include <system_error>

#include "common/json_fields.hpp"
#include "common/update_step/outcome.hpp"
#include "common/update_step/step_envelope.hpp"
#include "host/core/build_entry.hpp"
#include "host/core/host_error.hpp"

namespace liveupdate::host {
namespace json = boost::json;

namespace {

// As Tilt does, asked each time: "" when it cannot be known (paths stay absolute).
std::string working_directory() {
    std::error_code ec;
    std::string dir = std::filesystem::current_path(ec).string();
    return ec ? std::string() : dir;
}

// The plugin's step, read strictly: a malformed one fails the reconcile naming the member.
update_step::StepEnvelope decoded(json::object step, const std::string &live_update) {
    try {
        return update_step::decode_step(std::move(step));
    } catch (const common::DecodeError &e) {
        throw PluginCallError("reconcile of " + live_update + " failed", "plugin step", e.what());
    }
}

// The container an update restarted, when it asked for a restart and succeeded.
std::optional<std::string> restarted_by(const update_step::ContainerUpdate &update, const updater::Outcome &outcome) {
    if (outcome.kind != updater::Outcome::Kind::ok || !update.restart) return std::nullopt;
    const std::string &name = update.container.name.empty() ? update.container.id : update.container.name;
    return "container " + name + (update.container.pod.empty() ? "" : " of pod " + update.container.pod);
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

    void print(const std::vector<StepLogLine> &lines) {
        for (const StepLogLine &line : lines) log(line.level, line.text);
    }

    // A step's build entry (Tilt writes it when the build starts, before the
    // update's own lines, "Will copy ..."), its lines and its events, moved
    // out of the step: an initial sync's "started" event lists every file.
    void absorb(update_step::StepEnvelope &step) {
        for (const json::object &event : step.events)
            if (common::string_field(event, "type", "events") == "started") log_build_entry(event);
        print(step.log);
        for (json::object &event : step.events) result.events.push_back(std::move(event));
    }

    // Runs an "updates" step's updates and prints their lines in the
    // sequential order: each one's own, its updater's, then its outcome's.
    update_step::StepEnvelope run_batch(const update_step::StepEnvelope &step, UpdateFanout &fanout,
                                        const Executor &executor, PluginSession &session,
                                        const ReconcileDriver::Clock &clock) {
        std::vector<const update_step::ContainerUpdate *> updates;
        for (const update_step::BatchedUpdate &batched : step.updates) updates.push_back(&batched.update);
        std::vector<FannedOutUpdate> ran = fanout.run(executor, updates, step.stops_at_infra_failure);
        result.updates += ran.size();
        json::array outcomes;
        for (std::size_t i = 0; i < ran.size(); ++i) {
            outcomes.push_back(update_step::encode(ran[i].outcome));
            if (auto restarted = restarted_by(step.updates[i].update, ran[i].outcome))
                result.restarted.push_back(std::move(*restarted));
        }
        update_step::StepEnvelope next = decoded(
            session.continue_with(json::object{{"outcomes", std::move(outcomes)}}, clock()), result.live_update);
        const log::HeldLines held;  // every update's lines in one write
        for (std::size_t i = 0; i < ran.size(); ++i) {
            print(step.updates[i].log);
            print(ran[i].log);
            if (i < next.results.size()) print(next.results[i].log);
        }
        return next;
    }

private:
    // A started event, checked by the step's decoding: its "filesChanged" is an array of paths.
    void log_build_entry(const json::object &event) {
        const json::array *changed = common::array_field(event, "filesChanged", "events");
        if (changed == nullptr) return;
        if (std::string line = build_entry_line(*changed, working_directory()); !line.empty())
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
    auto &lane = locks_[live_update];
    if (!lane) lane = std::make_shared<Lane>();
    return lane;
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
        update_step::StepEnvelope step = decoded(std::move(opened.step), live_update);
        for (;;) {
            run.absorb(step);
            if (step.type == update_step::kDoneStep) break;
            if (step.type == update_step::kUpdatesStep) {
                step = run.run_batch(step, fanout_, executor_, *opened.session, clock_);
                continue;
            }
            updater::Outcome outcome = executor_.execute(step.update, run.sink());
            ++run.result.updates;
            if (auto restarted = restarted_by(step.update, outcome))
                run.result.restarted.push_back(std::move(*restarted));
            step = decoded(opened.session->continue_with(update_step::encode(outcome), clock_()), live_update);
        }
        run.result.status = std::move(step.status);
        run.result.status_changed = step.status_changed;
    });
    ReconcileResult &result = run.result;
    if (result.status_changed && !result.status.is_null()) {
        result.status_written = store_.write_status(ObjectKey{"LiveUpdate", live_update}, result.status);
    }
    return std::move(result);
}

}  // namespace liveupdate::host
