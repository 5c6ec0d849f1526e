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

Outcome decode_outcome(const json::value &value, const std::string &path) {
    const json::object &o = common::expect_object(value, path.empty() ? "outcome" : path);
    if (const json::value *ok = common::member(o, "ok")) {
        if (!ok->is_bool()) throw common::DecodeError(common::child(path, "ok"), "expected boolean");
        if (ok->get_bool()) return Outcome::ok();
    }
    if (const json::object *run = common::object_field(o, "runFailure", path)) {
        const std::string where = common::child(path, "runFailure");
        const std::int64_t code = common::int_field(*run, "exitCode", where);
        if (code < std::numeric_limits<int>::min() || code > std::numeric_limits<int>::max())
            throw common::DecodeError(common::child(where, "exitCode"), "out of range");
        return Outcome::run_failure(static_cast<int>(code), common::string_field(*run, "message", where));
    }
    if (common::member(o, "infraFailure") != nullptr)
        return Outcome::infra_failure(common::string_field(o, "infraFailure", path));
    if (common::member(o, "containerNotRunning") != nullptr)
        return Outcome::container_not_running(common::string_field(o, "containerNotRunning", path));
    throw common::DecodeError(path.empty() ? "outcome" : path,
                              "expected one of ok, runFailure, infraFailure, containerNotRunning");
}

}  // namespace liveupdate::update_step
