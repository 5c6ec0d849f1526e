#include "host/replay/scenario.hpp"

#include <algorithm>

#include "host/replay/partial_match.hpp"

namespace liveupdate::host::replay {
namespace json = boost::json;

namespace {

std::string replace_all(std::string_view text, std::string_view root) {
    static constexpr std::string_view kRoot = "${ROOT}";
    std::string out;
    std::size_t start = 0;
    for (std::size_t at = text.find(kRoot); at != std::string_view::npos; at = text.find(kRoot, start)) {
        out.append(text.substr(start, at - start));
        out.append(root);
        start = at + kRoot.size();
    }
    out.append(text.substr(start));
    return out;
}

[[noreturn]] void malformed(const std::string &where, const std::string &why) {
    throw ScenarioError(where + ": " + why);
}

common::MicroTime time_value(const json::value &value, const std::string &where) {
    if (!value.is_string()) malformed(where, "expected a time string");
    auto time = common::MicroTime::parse(value.as_string());
    if (!time) malformed(where, "not an RFC 3339 time: " + json::serialize(value));
    return *time;
}

const json::object &object_value(const json::value &value, const std::string &where) {
    if (!value.is_object()) malformed(where, "expected an object, got " + json::serialize(value));
    return value.as_object();
}

const json::array &array_value(const json::value &value, const std::string &where) {
    if (!value.is_array()) malformed(where, "expected an array, got " + json::serialize(value));
    return value.as_array();
}

void string_value(const json::value &value, const std::string &where) {
    if (!value.is_string()) malformed(where, "expected a string, got " + json::serialize(value));
}

// Paths under ${ROOT}: relative and never climbing out of it.
void relative_path(std::string_view path, const std::string &where) {
    if (path.empty() || path.front() == '/') malformed(where, "expected a path relative to ${ROOT}");
    std::size_t start = 0;
    while (start <= path.size()) {
        std::size_t end = path.find('/', start);
        if (end == std::string_view::npos) end = path.size();
        if (path.substr(start, end - start) == "..") malformed(where, "\"..\" may not leave ${ROOT}");
        start = end + 1;
    }
}

void check_outcome(const json::value &outcome, const std::string &where) {
    const json::object &object = object_value(outcome, where);
    if (object.size() != 1)
        malformed(where, "an outcome has exactly one of ok, runFailure, infraFailure, containerNotRunning");
    const auto &[key, value] = *object.begin();
    if (key == "ok") {
        if (!value.is_bool() || !value.as_bool()) malformed(where, "\"ok\" must be true");
    } else if (key == "runFailure") {
        const json::object &failure = object_value(value, where + ".runFailure");
        const json::value *code = failure.if_contains("exitCode");
        if (code == nullptr || !(code->is_int64() || code->is_uint64())) {
            malformed(where + ".runFailure", "needs an integer \"exitCode\"");
        }
        if (const json::value *message = failure.if_contains("message"))
            string_value(*message, where + ".runFailure.message");
    } else if (key == "infraFailure" || key == "containerNotRunning") {
        string_value(value, where + "." + std::string(key));
    } else {
        malformed(where, "unknown outcome \"" + std::string(key) + "\"");
    }
}

void check_partial_or_throw(const json::value &expected, const std::string &where) {
    try {
        check_partial(expected, where);
    } catch (const std::invalid_argument &e) {
        throw ScenarioError(e.what());
    }
}

void check_expect(const json::value &value, const std::string &where) {
    for (const auto &[key, expected] : object_value(value, where)) {
        const std::string field = where + "." + std::string(key);
        if (key == "status" || key == "objects") {
            for (const auto &[name, partial] : object_value(expected, field)) {
                if (key == "objects" && name.find('/') == std::string_view::npos) {
                    malformed(field, "keys are \"<Kind>/<name>\", got \"" + std::string(name) + "\"");
                }
                check_partial_or_throw(partial, field + "." + std::string(name));
            }
        } else if (key == "calls" || key == "events") {
            // An array (same count, in order), or an operator such as {"$len": N}.
            const json::object *op = expected.if_object();
            if (!(expected.is_array() || (op && op->size() == 1 && op->begin()->key().starts_with("$")))) {
                malformed(field, "expected an array, got " + json::serialize(expected));
            }
            check_partial_or_throw(expected, field);
        } else if (key == "log") {
            for (const auto &[which, texts] : object_value(expected, field)) {
                if (which != "contains" && which != "excludes") {
                    malformed(field, "only \"contains\" and \"excludes\", got \"" + std::string(which) + "\"");
                }
                for (const json::value &text : array_value(texts, field + "." + std::string(which))) {
                    string_value(text, field + "." + std::string(which));
                }
            }
        } else if (key == "statusWrites") {
            for (const auto &[name, count] : object_value(expected, field)) {
                if (!(count.is_int64() || count.is_uint64())) {
                    malformed(field + "." + std::string(name), "expected an integer");
                }
            }
        } else if (key == "admission") {
            const json::object &admission = object_value(expected, field);
            for (const auto &[akey, avalue] : admission) {
                if (akey == "rejected") {
                    if (!avalue.is_bool()) malformed(field + ".rejected", "expected true or false");
                } else if (akey == "message") {
                    check_partial_or_throw(avalue, field + ".message");
                } else {
                    malformed(field, "unknown key \"" + std::string(akey) + "\"");
                }
            }
        } else {
            malformed(where, "unknown expectation \"" + std::string(key) + "\"");
        }
    }
}

void check_step(const ScenarioStep &step, const std::string &where) {
    const json::value &value = step.value;
    const std::string field = where + ": " + step.key;
    if (step.key == "apply") {
        object_value(value, field);
    } else if (step.key == "delete") {
        const json::object &target = object_value(value, field);
        for (const char *key : {"kind", "name"}) {
            const json::value *member = target.if_contains(key);
            if (member == nullptr) malformed(field, std::string("needs \"") + key + "\"");
            string_value(*member, field + "." + key);
        }
    } else if (step.key == "clock") {
        time_value(value, field);
    } else if (step.key == "write") {
        for (const auto &[path, content] : object_value(value, field)) {
            relative_path(path, field + "." + std::string(path));
            string_value(content, field + "." + std::string(path));
        }
    } else if (step.key == "remove") {
        for (const json::value &path : array_value(value, field)) {
            string_value(path, field);
            relative_path(path.as_string(), field);
        }
    } else if (step.key == "fileEvent") {
        const json::object &event = object_value(value, field);
        const json::value *watch = event.if_contains("fileWatch");
        const json::value *time = event.if_contains("time");
        const json::value *paths = event.if_contains("paths");
        if (watch == nullptr || time == nullptr || paths == nullptr) {
            malformed(field, "needs \"fileWatch\", \"time\" and \"paths\"");
        }
        string_value(*watch, field + ".fileWatch");
        time_value(*time, field + ".time");
        for (const json::value &path : array_value(*paths, field + ".paths")) string_value(path, field + ".paths");
    } else if (step.key == "reconcile") {
        string_value(value, field);
    } else if (step.key == "updater") {
        const json::array &outcomes = array_value(value, field);
        for (std::size_t i = 0; i < outcomes.size(); ++i) {
            check_outcome(outcomes[i], field + "[" + std::to_string(i) + "]");
        }
    } else if (step.key == "reload") {
        // Extension of replay.md: {"plugin": PATH} reloads from another file.
        for (const auto &[key, member] : object_value(value, field)) {
            if (key != "plugin") malformed(field, "unknown key \"" + std::string(key) + "\"");
            string_value(member, field + ".plugin");
        }
    } else if (step.key == "expect") {
        check_expect(value, field);
    }
}

// The whole text as one JSON value; the error names the line and column.
json::value parse_document(std::string_view text) {
    json::stream_parser parser;
    boost::system::error_code ec;
    std::size_t consumed = parser.write_some(text.data(), text.size(), ec);
    if (!ec) parser.finish(ec);
    if (ec) {
        const std::string_view before = text.substr(0, consumed);
        const std::size_t line = 1 + static_cast<std::size_t>(std::count(before.begin(), before.end(), '\n'));
        const std::size_t line_start = before.rfind('\n');
        const std::size_t column = consumed - (line_start == std::string_view::npos ? 0 : line_start + 1) + 1;
        throw ScenarioError("invalid JSON at line " + std::to_string(line) + ", column " + std::to_string(column) +
                            ": " + ec.message());
    }
    return parser.release();
}

}  // namespace

const std::vector<std::string> &step_keys() {
    static const std::vector<std::string> keys{"apply",     "delete",    "clock",   "write",  "remove",
                                               "fileEvent", "reconcile", "updater", "reload", "expect"};
    return keys;
}

json::value substitute_root(const json::value &value, std::string_view root) {
    switch (value.kind()) {
    case json::kind::string: return json::value(replace_all(value.get_string(), root));
    case json::kind::array: {
        json::array out;
        out.reserve(value.get_array().size());
        for (const json::value &element : value.get_array()) out.push_back(substitute_root(element, root));
        return out;
    }
    case json::kind::object: {
        json::object out;
        for (const auto &member : value.get_object()) {
            out[replace_all(member.key(), root)] = substitute_root(member.value(), root);
        }
        return out;
    }
    default: return value;
    }
}

Scenario parse_scenario(std::string_view text, std::string_view root) {
    json::value raw = parse_document(text);
    if (!raw.is_object()) throw ScenarioError("a scenario is a JSON object");
    const json::value document = substitute_root(raw, root);
    const json::object &top = document.as_object();
    Scenario scenario;
    if (const json::value *description = top.if_contains("description")) {
        string_value(*description, "description");
        scenario.description = std::string(description->as_string());
    }
    const json::value *clock = top.if_contains("clock");
    if (clock == nullptr) malformed("scenario", "missing \"clock\"");
    scenario.clock = time_value(*clock, "clock");
    if (const json::value *files = top.if_contains("files")) {
        for (const auto &[path, content] : object_value(*files, "files")) {
            relative_path(path, "files." + std::string(path));
            string_value(content, "files." + std::string(path));
            scenario.files.emplace_back(std::string(path), std::string(content.as_string()));
        }
    }
    const json::value *steps = top.if_contains("steps");
    if (steps == nullptr) malformed("scenario", "missing \"steps\"");
    const json::array &list = array_value(*steps, "steps");
    for (std::size_t i = 0; i < list.size(); ++i) {
        const std::string where = "step " + std::to_string(i);
        const json::object &step = object_value(list[i], where);
        if (step.size() != 1) malformed(where, "a step has exactly one key, got " + std::to_string(step.size()));
        const std::string key(step.begin()->key());
        if (std::find(step_keys().begin(), step_keys().end(), key) == step_keys().end()) {
            malformed(where, "unknown step \"" + key + "\"");
        }
        scenario.steps.push_back(ScenarioStep{key, step.begin()->value()});
        check_step(scenario.steps.back(), where);
    }
    return scenario;
}

}  // namespace liveupdate::host::replay
