// common/ignore_defs and common/json_fields: the one ignore-definition reader
// with errors naming the field, and the getters everything shares.
#include <boost/test/unit_test.hpp>

#include "common/ignore_defs.hpp"
#include "common/json_fields.hpp"
#include "common/json_parse.hpp"

using namespace liveupdate;
namespace json = boost::json;

namespace {

std::string error_of(const std::string &text) {
    try {
        common::parse_ignore_defs(json::parse(text), "spec.ignores");
    } catch (const common::DecodeError &e) {
        return e.what();
    }
    return "";
}

}  // namespace

BOOST_AUTO_TEST_SUITE(common_json)

BOOST_AUTO_TEST_CASE(ignore_definitions_read_and_write_back) {
    const json::value text = json::parse(R"([{"basePath":"/src","patterns":["*.o","!keep.o"]},{"basePath":"/tmp"}])");
    const auto defs = common::parse_ignore_defs(text, "spec.ignores");
    BOOST_TEST((defs == std::vector<common::IgnoreDef>{{"/src", {"*.o", "!keep.o"}}, {"/tmp", {}}}));
    BOOST_TEST(json::value(common::to_json(defs)) ==
               json::parse(R"([{"basePath":"/src","patterns":["*.o","!keep.o"]},{"basePath":"/tmp","patterns":[]}])"));
    BOOST_TEST(common::parse_ignore_defs(json::value(nullptr), "x").empty());
    const common::IgnoreSet set = common::ignore_set_of(defs);
    BOOST_TEST(set.matches("/src/a.o"));
    BOOST_TEST(!set.matches("/src/keep.o"));
}

BOOST_AUTO_TEST_CASE(ignore_definition_errors_name_the_field) {
    BOOST_TEST(error_of(R"({"basePath":"/"})") == "spec.ignores: expected array");
    BOOST_TEST(error_of(R"([1])") == "spec.ignores[0]: expected object");
    BOOST_TEST(error_of(R"([{"basePath":1}])") == "spec.ignores[0].basePath: expected string");
    BOOST_TEST(error_of(R"([{"basePath":"/","patterns":"*"}])") == "spec.ignores[0].patterns: expected array");
    BOOST_TEST(error_of(R"([{"basePath":"/","patterns":["a",2]}])") == "spec.ignores[0].patterns[1]: expected string");
}

namespace {

template <class Read>
std::string field_error_of(Read read) {
    try {
        read();
    } catch (const common::DecodeError &e) {
        return e.what();
    }
    return "";
}

}  // namespace

// Absent or null reads as the fallback the caller names (the zero value by
// default); present with another type is an error naming the path.
BOOST_AUTO_TEST_CASE(getters_read_absent_as_the_fallback_and_refuse_a_wrong_type) {
    const json::value v =
        json::parse(R"({"metadata":{"name":"lu","labels":{"a":1},"uid":null},"list":[1],"on":true,"n":7})");
    const json::object &o = v.as_object();
    BOOST_TEST(common::string_field(v, {"metadata", "name"}) == "lu");
    BOOST_TEST(common::string_field(v, {"metadata", "uid"}, "none") == "none");
    BOOST_TEST(common::string_field(v, {"absent", "name"}, "none") == "none");
    BOOST_TEST(common::string_field(o, "absent", "spec", "x") == "x");
    BOOST_TEST(common::member(v, {"absent"}) == nullptr);
    BOOST_TEST(common::member(v, {"metadata", "uid"}) == nullptr);
    BOOST_TEST(common::object_field(o, {"metadata"}) != nullptr);
    BOOST_TEST(common::array_field(o, {"list"}) != nullptr);
    BOOST_TEST(common::bool_field(o, {"on"}));
    BOOST_TEST(common::bool_field(o, {"off"}, true));
    BOOST_TEST(common::int_field(o, {"n"}) == 7);
    BOOST_TEST(common::int_field(o, {"m"}, -1) == -1);

    BOOST_TEST(field_error_of([&] {
                   common::string_field(v, {"metadata", "labels", "a"});
               }) == "metadata.labels.a: expected string");
    BOOST_TEST(field_error_of([&] { common::string_field(v, {"list", "x"}); }) == "list: expected object");
    BOOST_TEST(field_error_of([&] { common::array_field(o, {"metadata"}); }) == "metadata: expected array");
    BOOST_TEST(field_error_of([&] { common::string_field(o, {"metadata"}, "x"); }) == "metadata: expected string");
    BOOST_TEST(field_error_of([&] { common::bool_field(o, {"n"}); }) == "n: expected boolean");
    BOOST_TEST(field_error_of([&] { common::int_field(o, "on", "spec"); }) == "spec.on: expected integer");
    BOOST_TEST(field_error_of([&] { common::string_field(json::value(1), {"a"}); }) == "expected object");
}

namespace {

std::string parse_error_of(std::string_view text) {
    try {
        common::parse_limited(text);
    } catch (const common::DecodeError &e) {
        return e.what();
    }
    return "";
}

}  // namespace

// What the engine reads (objects, updaters' answers): Boost.JSON alone keeps
// the last of a key given twice and reads 1e99999 as infinity.
BOOST_AUTO_TEST_CASE(parse_limited_refuses_duplicates_and_names_field_line_and_column) {
    BOOST_TEST(parse_error_of("{\"kind\": \"LiveUpdate\",\n \"spec\": {\"selector\": {}, \"selector\": {}}}") ==
               "spec: malformed JSON at line 2, column 27: duplicate key \"selector\" (first at line 2)");
    BOOST_TEST(parse_error_of("{\"spec\": {\"n\": [1, 1e99999]}}") ==
               "spec.n[1]: malformed JSON at line 1, column 20: number out of range");
    BOOST_TEST(parse_error_of("{\"spec\": \"\xc3\x28\"}") ==
               "spec: malformed JSON at line 1, column 11: invalid UTF-8");
    BOOST_TEST(parse_error_of("[1,\n 2,,]") == "[2]: malformed JSON at line 2, column 4: syntax error");
    BOOST_TEST(parse_error_of("{\"a\": {\"a\": 1}, \"b\": [{\"a\": 1}, {\"a\": 2}]}") == "");
}

// A text split in pieces (the plugin's snapshot) is read by the same rules,
// whichever piece a key or a number falls in.
BOOST_AUTO_TEST_CASE(pieces_are_read_by_the_same_rules) {
    const auto value = [](std::initializer_list<std::string_view> pieces) {
        return common::parse_json_pieces(pieces, 8);
    };
    const auto read = value({"{\"na", "me\": [1, 2", "3], \"b\"", ": true}"});
    BOOST_TEST_REQUIRE(read.has_value());
    BOOST_TEST(boost::json::serialize(*read) == R"({"name":[1,23],"b":true})");
    BOOST_TEST(!value({"{\"a\": 1, \"", "a\": 2}"}).has_value());
    BOOST_TEST(!value({"{\"a\": 1}", ", \"a\": 2}"}).has_value());
    BOOST_TEST(!value({"[1, 1e9", "9999]"}).has_value());
    BOOST_TEST(!value({"[1, 2]", " x"}).has_value());
    BOOST_TEST(!value({"[1, ", ""}).has_value());
    BOOST_TEST(!value({"[[[[[[[[[", "]]]]]]]]]"}).has_value());
    BOOST_TEST(value({"{\"a\": {\"a\": 1}}"}).has_value());
}

BOOST_AUTO_TEST_SUITE_END()
