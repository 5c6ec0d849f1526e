#include "host/replay/partial_match.hpp"

#include <stdexcept>

#include "common/json_fields.hpp"
#include "common/json_numbers.hpp"

namespace liveupdate::host::replay {
namespace json = boost::json;

namespace {

// The operator name when value is a single-key object whose key starts with '$'.
std::string_view operator_of(const json::value &value) {
    const json::object *object = value.if_object();
    if (object == nullptr || object->size() != 1) return {};
    std::string_view key = object->begin()->key();
    return !key.empty() && key.front() == '$' ? key : std::string_view{};
}

std::string text_of(const json::value *value) { return value == nullptr ? "(absent)" : json::serialize(*value); }

bool scalars_equal(const json::value &a, const json::value &b) {
    if (a.is_number() && b.is_number()) return common::same_number(a, b);
    return a == b;
}

bool matches(const json::value &expected, const json::value *actual) {
    std::vector<Mismatch> ignored;
    match_partial(expected, actual, "", ignored);
    return ignored.empty();
}

void match_operator(std::string_view op, const json::value &operand, const json::value &expected,
                    const json::value *actual, const std::string &path, std::vector<Mismatch> &out) {
    auto fail = [&] { out.push_back(Mismatch{path, json::serialize(expected), text_of(actual)}); };
    if (op == "$absent") {
        const bool absent = actual == nullptr || actual->is_null();
        if (absent != operand.as_bool()) fail();
    } else if (op == "$any") {
        if ((actual != nullptr) != operand.as_bool()) fail();
    } else if (op == "$contains") {
        if (actual == nullptr || !actual->is_string() ||
            std::string_view(actual->as_string()).find(std::string_view(operand.as_string())) ==
                std::string_view::npos) {
            fail();
        }
    } else if (op == "$len") {
        const std::int64_t want = operand.to_number<std::int64_t>();
        std::int64_t have = -1;
        if (actual != nullptr && actual->is_array()) have = static_cast<std::int64_t>(actual->as_array().size());
        if (actual != nullptr && actual->is_string()) have = static_cast<std::int64_t>(actual->as_string().size());
        if (have != want) fail();
    } else if (op == "$includes" || op == "$excludes") {
        if (actual == nullptr || !actual->is_array()) return fail();
        const bool includes = op == "$includes";
        for (const json::value &wanted : operand.as_array()) {
            bool found = false;
            for (const json::value &element : actual->as_array()) {
                if (matches(wanted, &element)) {
                    found = true;
                    break;
                }
            }
            if (found != includes) {
                out.push_back(Mismatch{path, std::string(op) + " " + json::serialize(wanted), text_of(actual)});
            }
        }
    }
}

}  // namespace

std::string join_key(const std::string &path, std::string_view key) {
    return path.empty() ? std::string(key) : path + "." + std::string(key);
}

void match_partial(const json::value &expected, const json::value *actual, const std::string &path,
                   std::vector<Mismatch> &out) {
    if (std::string_view op = operator_of(expected); !op.empty()) {
        return match_operator(op, expected.as_object().begin()->value(), expected, actual, path, out);
    }
    if (expected.is_object()) {
        if (actual == nullptr || !actual->is_object()) {
            out.push_back(Mismatch{path, json::serialize(expected), text_of(actual)});
            return;
        }
        for (const auto &member : expected.as_object()) {
            match_partial(member.value(), common::member_as_written(actual->as_object(), member.key()),
                          join_key(path, member.key()), out);
        }
        return;
    }
    if (expected.is_array()) {
        if (actual == nullptr || !actual->is_array() || actual->as_array().size() != expected.as_array().size()) {
            out.push_back(Mismatch{path, json::serialize(expected), text_of(actual)});
            return;
        }
        for (std::size_t i = 0; i < expected.as_array().size(); ++i) {
            match_partial(expected.as_array()[i], &actual->as_array()[i], path + "[" + std::to_string(i) + "]", out);
        }
        return;
    }
    if (actual == nullptr || !scalars_equal(expected, *actual)) {
        out.push_back(Mismatch{path, json::serialize(expected), text_of(actual)});
    }
}

void check_partial(const json::value &expected, const std::string &path) {
    if (std::string_view op = operator_of(expected); !op.empty()) {
        const json::value &operand = expected.as_object().begin()->value();
        auto bad = [&](const char *want) {
            throw std::invalid_argument(path + ": operator " + std::string(op) + " needs " + want);
        };
        if (op == "$absent" || op == "$any") {
            if (!operand.is_bool()) bad("true or false");
        } else if (op == "$contains") {
            if (!operand.is_string()) bad("a string");
        } else if (op == "$len") {
            if (!(operand.is_int64() || operand.is_uint64()) || (operand.is_int64() && operand.get_int64() < 0)) {
                bad("a non-negative integer");
            }
        } else if (op == "$includes" || op == "$excludes") {
            if (!operand.is_array()) bad("an array");
            for (std::size_t i = 0; i < operand.as_array().size(); ++i) {
                check_partial(operand.as_array()[i], path + "." + std::string(op) + "[" + std::to_string(i) + "]");
            }
        } else {
            throw std::invalid_argument(path + ": unknown operator " + std::string(op));
        }
        return;
    }
    if (expected.is_object()) {
        for (const auto &member : expected.as_object()) {
            if (member.key().starts_with("$")) {
                throw std::invalid_argument(path + ": an operator is an object with that one key, got " +
                                            json::serialize(expected));
            }
            check_partial(member.value(), join_key(path, member.key()));
        }
    } else if (expected.is_array()) {
        for (std::size_t i = 0; i < expected.as_array().size(); ++i) {
            check_partial(expected.as_array()[i], path + "[" + std::to_string(i) + "]");
        }
    }
}

}  // namespace liveupdate::host::replay
