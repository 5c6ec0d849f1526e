#include "common/update_step/outcome.hpp"

#include <algorithm>
#include <iterator>
#include <limits>

#include "common/json_fields.hpp"

namespace liveupdate::update_step {
namespace json = boost::json;
using updater::Outcome;

namespace {

constexpr updater::AgentSource kAgentSources[] = {updater::AgentSource::none, updater::AgentSource::injected,
                                                  updater::AgentSource::copied};

json::object encode_kind(const Outcome &outcome) {
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

bool is_detail(std::string_view key) { return key == "agent" || key == "processRestarted"; }

Outcome decode_kind(std::string_view key, const json::value &body, const std::string &path, const std::string &where) {
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

}  // namespace

std::string_view agent_source_text(updater::AgentSource source) {
    switch (source) {
    case updater::AgentSource::unknown: return "";
    case updater::AgentSource::none: return "none";
    case updater::AgentSource::injected: return "injected";
    case updater::AgentSource::copied: return "copied";
    }
    return "";
}

json::object encode(const Outcome &outcome) {
    json::object o = encode_kind(outcome);
    if (outcome.agent != updater::AgentSource::unknown) o["agent"] = agent_source_text(outcome.agent);
    if (outcome.process_restarted) o["processRestarted"] = true;
    return o;
}

// One rule for every reader of an outcome (the plugin, the record updater,
// the replay scenario check): exactly one kind key; "ok" only as true; a run
// failure names its exit code, its message may be left out.
Outcome decode_outcome(const json::value &value, const std::string &path) {
    const std::string where = path.empty() ? "outcome" : path;
    const json::object &o = common::expect_object(value, where);
    const json::key_value_pair *kind = nullptr;
    std::size_t kinds = 0;
    for (const auto &member : o)
        if (!is_detail(member.key())) {
            kind = &member;
            ++kinds;
        }
    if (kinds != 1)
        throw common::DecodeError(where, "expected exactly one of ok, runFailure, infraFailure, containerNotRunning");
    Outcome outcome = decode_kind(kind->key(), kind->value(), path, where);
    if (const json::value *agent = o.if_contains("agent")) {
        const std::string agent_path = common::child(path, "agent");
        if (!agent->is_string()) throw common::DecodeError(agent_path, "expected string");
        const auto known =
            std::find_if(std::begin(kAgentSources), std::end(kAgentSources),
                         [&](updater::AgentSource s) { return agent_source_text(s) == agent->get_string(); });
        if (known == std::end(kAgentSources))
            throw common::DecodeError(agent_path, "expected one of none, injected, copied");
        outcome.agent = *known;
    }
    if (const json::value *restarted = o.if_contains("processRestarted")) {
        if (!restarted->is_bool())
            throw common::DecodeError(common::child(path, "processRestarted"), "expected boolean");
        outcome.process_restarted = restarted->get_bool();
    }
    return outcome;
}

}  // namespace liveupdate::update_step
