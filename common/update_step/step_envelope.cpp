#include "common/update_step/step_envelope.hpp"

#include "common/json_fields.hpp"
#include "common/update_step/field_walk.hpp"

namespace liveupdate::update_step {
namespace json = boost::json;

// An event is reported as it is, so only what readers of it rely on is
// checked: its type, names, and a started event's files.
void StepEnvelope::check_event(const json::object &event, const std::string &path) {
    field_walk::Decoder d(event, path);
    std::string type;
    std::string name;
    d("type", type);
    d("liveUpdate", name);
    d("manifest", name);
    if (type == "started") {
        const json::value *files = common::member(event, "filesChanged");
        if (files == nullptr) throw common::DecodeError(common::child(path, "filesChanged"), "missing");
        const std::string where = common::child(path, "filesChanged");
        const json::array &list = field_walk::Decoder::array_of(*files, where);
        for (std::size_t i = 0; i < list.size(); ++i)
            if (!list[i].is_string()) throw common::DecodeError(common::index(where, i), "expected string");
    } else if (type == "completed") {
        d("error", name);
    } else {
        throw common::DecodeError(common::child(path, "type"), "unknown event type \"" + type + "\"");
    }
}

json::object encode(const StepEnvelope &step) {
    json::object out;
    field_walk::Encoder encoder(out);
    StepEnvelope::fields(step, encoder);
    return out;
}

StepEnvelope decode_step(json::object document) {
    StepEnvelope step;
    field_walk::Decoder decoder(document, "", true);
    StepEnvelope::fields(step, decoder);
    if (step.type != kUpdateStep && step.type != kUpdatesStep && step.type != kDoneStep)
        throw common::DecodeError("type", "unknown step type \"" + step.type + "\"");
    if (step.type == kUpdatesStep && step.updates.empty()) throw common::DecodeError("updates", "empty");
    return step;
}

}  // namespace liveupdate::update_step
