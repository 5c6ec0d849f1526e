// The step document around the updates (liveupdate_plugin.h's step): its
// type, lines and events, the update or updates it asks for, and a done
// step's status. One field list describes it; the host decodes it strictly:
// a missing or mistyped member is a common::DecodeError naming its path
// ("updates[0].update.container.containerName: expected string"); members it
// does not know are skipped (a newer plugin may add optional ones).
#pragma once

#include <string>
#include <vector>

#include <boost/json.hpp>

#include "common/log_level.hpp"
#include "common/update_step/container_update.hpp"
#include "common/update_step/field_walk.hpp"

namespace liveupdate::update_step {

// A line the plugin wrote: {"level": "info"|"warn"|"error"|"debug", "text"}.
struct LogLine {
    common::LogLevel level = common::LogLevel::info;
    std::string text;

    template <class S, class F>
    static void fields(S &s, F &&f) {
        f("level", s.level);
        f("text", s.text);
    }
};

// One update of an "updates" step with the lines written before it.
struct BatchedUpdate {
    std::vector<LogLine> log;
    ContainerUpdate update;
};

// The lines the outcome of one update of an "updates" step folded wrote.
struct UpdateResult {
    std::vector<LogLine> log;
};

inline constexpr const char *kUpdateStep = "update";    // one container update (stepVersion 1)
inline constexpr const char *kUpdatesStep = "updates";  // every container's update of one change (2)
inline constexpr const char *kDoneStep = "done";

struct StepEnvelope {
    std::string type;  // kUpdateStep, kUpdatesStep or kDoneStep
    std::vector<LogLine> log;
    // {"type": "started", "liveUpdate", "manifest", "filesChanged": [paths]} or
    // {"type": "completed", "liveUpdate", "manifest", "error"}, kept as JSON:
    // the host reports them as they are.
    std::vector<boost::json::object> events;
    ContainerUpdate update;              // an "update" step
    std::vector<BatchedUpdate> updates;  // an "updates" step: not empty
    bool stops_at_infra_failure = true;  // "updates": absent (older plugins) reads true
    std::vector<UpdateResult> results;   // "done" after "updates": one per folded outcome
    boost::json::value status;           // "done": LiveUpdateStatus JSON, null when the LiveUpdate is absent
    bool status_changed = false;         // "done"
    int step_version = 1;                // absent (older plugins) reads 1

    // The document's members in the order the plugin writes them.
    template <class S, class F>
    static void fields(S &s, F &&f) {
        const auto line = [](auto &l, auto &g) { LogLine::fields(l, g); };
        f("type", s.type);
        f.objects("log", s.log, line);
        f.objects_as_json("events", s.events, check_event);
        f.with("update", s.update, UpdateCodec{}, present_if(s.type == kUpdateStep));
        f.objects(
            "updates", s.updates,
            [&line](auto &u, auto &g) {
                g.objects("log", u.log, line);
                g.with("update", u.update, UpdateCodec{});
            },
            present_if(s.type == kUpdatesStep));
        f("stopsAtInfraFailure", s.stops_at_infra_failure, optional_field(s.type == kUpdatesStep));
        f.objects(
            "results", s.results, [&line](auto &r, auto &g) { g.objects("log", r.log, line); },
            optional_field(s.type == kDoneStep && !s.results.empty()));
        f("status", s.status, present_if(s.type == kDoneStep));
        f("statusChanged", s.status_changed, present_if(s.type == kDoneStep));
        f("stepVersion", s.step_version, optional_field(true));
    }

private:
    struct UpdateCodec {
        boost::json::object operator()(const ContainerUpdate &update) const { return encode(update); }
        ContainerUpdate operator()(const boost::json::value &value, const std::string &path) const {
            return decode_update(value, path);
        }
    };
    static void check_event(const boost::json::object &event, const std::string &path);
};

boost::json::object encode(const StepEnvelope &step);

// Consumes the document (its events and status move into the value). Throws
// common::DecodeError naming the member's path; an unknown "type" or an
// "updates" step without updates is one too.
StepEnvelope decode_step(boost::json::object document);

}  // namespace liveupdate::update_step
