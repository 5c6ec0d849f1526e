// common/ignore_defs and common/json_fields: the one ignore-definition reader
// with errors naming the field, and the lenient getters the host shares.
#include <boost/test/unit_test.hpp>

#include "common/ignore_defs.hpp"
#include "common/json_fields.hpp"

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

BOOST_AUTO_TEST_CASE(lenient_getters_read_what_is_not_there_as_nothing) {
    const json::value v = json::parse(R"({"metadata":{"name":"lu","labels":{"a":1}},"list":[1]})");
    BOOST_TEST(common::text_at(v, {"metadata", "name"}) == "lu");
    BOOST_TEST(common::text_at(v, {"metadata", "labels", "a"}) == "");
    BOOST_TEST(common::text_at(v, {"list", "x"}) == "");
    BOOST_TEST(common::value_at(v, {"absent"}) == nullptr);
    const json::object &o = v.as_object();
    BOOST_TEST(common::text_at(common::object_at(o, "metadata"), "name") == "lu");
    BOOST_TEST(common::text_at(common::object_at(o, "list"), "name") == "");
    BOOST_TEST(common::array_at(o, "list") != nullptr);
    BOOST_TEST(common::array_at(o, "metadata") == nullptr);
    BOOST_TEST(common::text_at(o, "metadata") == "");
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

BOOST_AUTO_TEST_SUITE_END()
