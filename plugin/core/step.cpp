#include "plugin/core/step.hpp"

#include <algorithm>

#include "common/json_fields.hpp"
#include "plugin/core/json_text_writer.hpp"

namespace liveupdate {
namespace json = boost::json;
using namespace common;

namespace {

json::array encode_log(const std::vector<LogLine> &lines) {
    json::array log;
    for (const auto &l : lines) log.push_back(json::object{{"level", common::to_string(l.level)}, {"text", l.text}});
    return log;
}

// Its files one by one: no tree of 100,000 strings for an initial sync.
void write_event(JsonTextWriter &w, const UpdateEvent &e) {
    w.begin_object();
    w.key("type");
    w.string(e.type);
    w.key("liveUpdate");
    w.string(e.live_update);
    w.key("manifest");
    w.string(e.manifest);
    if (e.type == "started") {
        w.key("filesChanged");
        w.begin_array();
        for (const auto &file : e.files_changed) w.string(file);
        w.end_array();
    } else {
        w.key("error");
        w.string(e.error);
    }
    w.end_object();
}

}  // namespace

std::string encode_step(const Step &step, int step_version) {
    JsonTextWriter w(4096);
    const char *type = step.update ? "update" : !step.updates.empty() ? "updates" : "done";
    w.begin_object();
    w.key("type");
    w.string(type);
    w.key("log");
    w.value(encode_log(step.log));
    w.key("events");
    w.begin_array();
    for (const auto &e : step.events) write_event(w, e);
    w.end_array();
    if (step.update) {
        w.key("update");
        w.value(update_step::encode(*step.update));
    } else if (!step.updates.empty()) {
        w.key("updates");
        w.begin_array();
        for (const auto &u : step.updates)
            w.value(json::object{{"log", encode_log(u.log)}, {"update", update_step::encode(u.update)}});
        w.end_array();
        w.key("stopsAtInfraFailure");
        w.boolean(step.stops_at_infra_failure);
    } else {
        if (!step.results.empty()) {
            w.key("results");
            w.begin_array();
            for (const auto &lines : step.results) w.value(json::object{{"log", encode_log(lines)}});
            w.end_array();
        }
        w.key("status");
        w.value(step.status ? api::encode_live_update_status(*step.status) : json::value(nullptr));
        w.key("statusChanged");
        w.boolean(step.status_changed);
    }
    w.key("stepVersion");
    w.integer(step_version);
    w.end_object();
    return w.take();
}

updater::Outcome decode_outcome(std::string_view text) {
    return update_step::decode_outcome(parse_limited(text, 1u << 20, 16), "");
}

std::vector<updater::Outcome> decode_outcomes(std::string_view text) {
    const json::value v = parse_limited(text, 1u << 24, 16);
    const auto &o = expect_object(v, "outcomes document");
    const auto *list = member(o, "outcomes");
    if (list == nullptr || !list->is_array()) throw DecodeError("outcomes", "expected an array of outcomes");
    std::vector<updater::Outcome> out;
    for (std::size_t i = 0; i < list->get_array().size(); ++i)
        out.push_back(update_step::decode_outcome(list->get_array()[i], "outcomes[" + std::to_string(i) + "]"));
    return out;
}

void check_outcomes(const std::vector<updater::Outcome> &outcomes, std::size_t updates, bool stops_at_infra_failure) {
    const auto infra = std::find_if(outcomes.begin(), outcomes.end(), [](const updater::Outcome &o) {
        return o.kind == updater::Outcome::Kind::infra_failure;
    });
    // An infrastructure failure that holds every container ends the fold (C07); one holding its own alone does not
    // (C10).
    const bool enough = infra != outcomes.end() && stops_at_infra_failure
                            ? infra < outcomes.begin() + static_cast<std::ptrdiff_t>(updates)
                            : outcomes.size() == updates;
    if (!enough || outcomes.size() > updates)
        throw DecodeError("outcomes",
                          "expected " + std::to_string(updates) + " outcomes, got " + std::to_string(outcomes.size()));
}

}  // namespace liveupdate
