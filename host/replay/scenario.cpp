#include "host/replay/scenario.hpp"

#include <algorithm>

#include "common/json_fields.hpp"
#include "common/update_step/outcome.hpp"
#include "host/replay/partial_match.hpp"

namespace liveupdate::host::replay {
namespace fs = std::filesystem;
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
    try {
        update_step::decode_outcome(outcome, where);
    } catch (const common::DecodeError &e) {
        throw ScenarioError(e.what());
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
            const json::value *member = common::member(target, key);
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
        const json::value *watch = common::member(event, "fileWatch");
        const json::value *time = common::member(event, "time");
        const json::value *paths = common::member(event, "paths");
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

// RFC 7386 JSON merge patch: patch's members replace target's, objects merge
// member by member, null removes a member.
json::value merge_patch(const json::value &target, const json::value &patch) {
    if (!patch.is_object()) return patch;
    json::object merged = target.is_object() ? target.as_object() : json::object{};
    for (const auto &[key, value] : patch.as_object()) {
        if (value.is_null()) {
            merged.erase(key);
        } else {
            const json::value *current = common::member(merged, key);
            merged[key] = merge_patch(current ? *current : json::value(nullptr), value);
        }
    }
    return merged;
}

// Resolves a scenario's includes (replay.md, "Fixtures") into one list of
// checked steps, each labelled with where it is written.
class IncludeExpander {
public:
    IncludeExpander(std::string_view root, const IncludeReader &read, const fs::path &file)
        : root_(root), read_(read), chain_{file.lexically_normal()} {}

    void add_steps(const json::array &list, const fs::path &file, const std::string &prefix,
                   std::vector<ScenarioStep> &out) {
        for (std::size_t i = 0; i < list.size(); ++i) {
            const std::string where = prefix + "step " + std::to_string(i);
            const json::object &step = object_value(list[i], where);
            if (step.size() != 1) malformed(where, "a step has exactly one key, got " + std::to_string(step.size()));
            const std::string key(step.begin()->key());
            const json::value &value = step.begin()->value();
            if (std::find(step_keys().begin(), step_keys().end(), key) == step_keys().end()) {
                malformed(where, "unknown step \"" + key + "\"");
            }
            if (key == "include") {
                include_steps(value, file, where, out);
                continue;
            }
            json::value resolved = value;
            if (key == "apply" && value.is_object() && value.as_object().contains("$include")) {
                resolved = include_object(value.as_object(), file, where + ": apply");
            }
            out.push_back(ScenarioStep{key, std::move(resolved), where});
            check_step(out.back(), where);
        }
    }

private:
    // Guards against includes of symbolic links that loop where the paths do not.
    static constexpr std::size_t kMaxDepth = 16;

    void include_steps(const json::value &name, const fs::path &from, const std::string &where,
                       std::vector<ScenarioStep> &out) {
        const std::string field = where + ": include";
        const fs::path path = resolve(name, from, field);
        const json::value document = load(path, field);
        const std::string here = field + " " + std::string(name.as_string());
        const json::object &fixture = object_value(document, here);
        for (const auto &[key, member] : fixture) {
            if (key == "description") {
                string_value(member, here + ": description");
            } else if (key != "steps") {
                malformed(here, "a fixture has only \"description\" and \"steps\", got \"" + std::string(key) + "\"");
            }
        }
        const json::value *steps = common::member(fixture, "steps");
        if (steps == nullptr) malformed(here, "missing \"steps\"");
        chain_.push_back(path);
        add_steps(array_value(*steps, here + ": steps"), path, here + ": ", out);
        chain_.pop_back();
    }

    // The object of the file named by "$include", merge-patched with the other members.
    json::value include_object(const json::object &object, const fs::path &from, const std::string &field) {
        const std::string here = field + ".$include";
        const json::value &name = object.at("$include");
        const fs::path path = resolve(name, from, here);
        chain_.push_back(path);
        json::value base = load(path, here);
        const std::string in_file = here + " " + std::string(name.as_string());
        const json::object &base_object = object_value(base, in_file);
        if (base_object.contains("$include")) base = include_object(base_object, path, in_file);
        chain_.pop_back();
        json::object patch = object;
        patch.erase("$include");
        return merge_patch(base, patch);
    }

    // The included file's path: relative names are against the including file's folder.
    fs::path resolve(const json::value &name, const fs::path &from, const std::string &field) const {
        if (!name.is_string() || name.as_string().empty()) {
            malformed(field, "expected a file name, got " + json::serialize(name));
        }
        if (!read_) malformed(field, "includes need a scenario read from a file");
        const fs::path written(std::string(name.as_string()));
        fs::path path = (written.is_absolute() ? written : from.parent_path() / written).lexically_normal();
        if (std::find(chain_.begin(), chain_.end(), path) != chain_.end()) {
            std::string cycle;
            for (const fs::path &file : chain_) cycle += file.string() + " -> ";
            malformed(field, "an include cycle: " + cycle + path.string());
        }
        if (chain_.size() > kMaxDepth) malformed(field, "includes nested deeper than " + std::to_string(kMaxDepth));
        return path;
    }

    json::value load(const fs::path &path, const std::string &field) const {
        std::string text;
        try {
            text = read_(path);
        } catch (const std::exception &e) {
            malformed(field, path.string() + ": " + e.what());
        }
        try {
            return substitute_root(parse_document(text), root_);
        } catch (const ScenarioError &e) {
            malformed(field, path.string() + ": " + e.what());
        }
    }

    std::string_view root_;
    const IncludeReader &read_;
    std::vector<fs::path> chain_;  // the files being expanded, outermost first
};

}  // namespace

const std::vector<std::string> &step_keys() {
    static const std::vector<std::string> keys{"apply",     "delete",  "clock",  "write",  "remove", "fileEvent",
                                               "reconcile", "updater", "reload", "expect", "include"};
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

Scenario parse_scenario(std::string_view text, std::string_view root, const fs::path &file, const IncludeReader &read) {
    json::value raw = parse_document(text);
    if (!raw.is_object()) throw ScenarioError("a scenario is a JSON object");
    const json::value document = substitute_root(raw, root);
    const json::object &top = document.as_object();
    Scenario scenario;
    if (const json::value *description = common::member(top, "description")) {
        string_value(*description, "description");
        scenario.description = std::string(description->as_string());
    }
    const json::value *clock = common::member(top, "clock");
    if (clock == nullptr) malformed("scenario", "missing \"clock\"");
    scenario.clock = time_value(*clock, "clock");
    if (const json::value *files = common::member(top, "files")) {
        for (const auto &[path, content] : object_value(*files, "files")) {
            relative_path(path, "files." + std::string(path));
            string_value(content, "files." + std::string(path));
            scenario.files.emplace_back(std::string(path), std::string(content.as_string()));
        }
    }
    const json::value *steps = common::member(top, "steps");
    if (steps == nullptr) malformed("scenario", "missing \"steps\"");
    IncludeExpander(root, read, file).add_steps(array_value(*steps, "steps"), file, "", scenario.steps);
    return scenario;
}

}  // namespace liveupdate::host::replay
