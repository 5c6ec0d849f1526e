#include "common/update_step/outcome.hpp"

#include <limits>

#include "common/json_fields.hpp"

namespace liveupdate::update_step {
namespace json = boost::json;
using updater::Outcome;

json::object encode(const Outcome &outcome) {
    switch (outcome.kind) {
    case Outcome::Kind::ok: return json::object{{"ok", true}};
    case Outcome::Kind::run_failure:
        return json::object{
            {"runFailure", json::object{{"message", outcome.message}, {"exitCode", outcome.exit_code}}}};
    case Outcome::Kind::infra_failure: return json::object{{"infraFailure", outcome.message}};
    case Outcome::Kind::container_not_running: return json::object{{"containerNotRunning", outcome.message}};
    }
    return json::object{{"infraFailure", "unknown outcome"}};
}

// One rule for every reader of an outcome (the plugin, the record updater,
// the replay scenario check): exactly one key; "ok" only as true; a run
// failure names its exit code, its message may be left out.
Outcome decode_outcome(const json::value &value, const std::string &path) {
    const std::string where = path.empty() ? "outcome" : path;
    const json::object &o = common::expect_object(value, where);
    if (o.size() != 1)
        throw common::DecodeError(where, "expected exactly one of ok, runFailure, infraFailure, containerNotRunning");
    const std::string_view key = o.begin()->key();
    const json::value &body = o.begin()->value();
    if (key == "ok") {
        if (!body.is_bool()) throw common::DecodeError(common::child(path, "ok"), "expected boolean");
        if (!body.get_bool()) throw common::DecodeError(common::child(path, "ok"), "must be true");
        return Outcome::ok();
    }
    if (key == "runFailure") {
        const std::string run_path = common::child(path, "runFailure");
        const json::object &run = common::expect_object(body, run_path);
        if (common::member(run, "exitCode") == nullptr)
            throw common::DecodeError(common::child(run_path, "exitCode"), "missing");
        const std::int64_t code = common::int_field(run, "exitCode", run_path);
        if (code < std::numeric_limits<int>::min() || code > std::numeric_limits<int>::max())
            throw common::DecodeError(common::child(run_path, "exitCode"), "out of range");
        return Outcome::run_failure(static_cast<int>(code), common::string_field(run, "message", run_path));
    }
    if (key == "infraFailure" || key == "containerNotRunning") {
        if (!body.is_string()) throw common::DecodeError(common::child(path, key), "expected string");
        std::string message(body.get_string());
        return key == "infraFailure" ? Outcome::infra_failure(std::move(message))
                                     : Outcome::container_not_running(std::move(message));
    }
    throw common::DecodeError(where, "unknown outcome \"" + std::string(key) + "\"");
}

}  // namespace liveupdate::update_step
