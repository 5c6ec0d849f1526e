#include <boost/json.hpp>
#include <boost/test/unit_test.hpp>

#include "host/replay/partial_match.hpp"

using liveupdate::host::replay::check_partial;
using liveupdate::host::replay::match_partial;
using liveupdate::host::replay::Mismatch;
namespace json = boost::json;

namespace {

std::vector<Mismatch> mismatches(std::string_view expected, std::string_view actual) {
    std::vector<Mismatch> out;
    const json::value e = json::parse(expected);
    if (actual.empty()) {
        match_partial(e, nullptr, "x", out);
    } else {
        const json::value a = json::parse(actual);
        match_partial(e, &a, "x", out);
    }
    return out;
}

bool ok(std::string_view expected, std::string_view actual) { return mismatches(expected, actual).empty(); }

}  // namespace

BOOST_AUTO_TEST_SUITE(partial_match)

BOOST_AUTO_TEST_CASE(objects_match_on_the_expected_keys_only) {
    BOOST_TEST(ok(R"({"a": 1})", R"({"a": 1, "b": 2})"));
    BOOST_TEST(!ok(R"({"a": 1, "c": 3})", R"({"a": 1, "b": 2})"));
    BOOST_TEST(!ok(R"({"a": 1})", R"([1])"));
}

BOOST_AUTO_TEST_CASE(arrays_need_the_same_length_and_order) {
    BOOST_TEST(ok(R"([{"a": 1}, 2])", R"([{"a": 1, "z": 0}, 2])"));
    BOOST_TEST(!ok(R"([1, 2])", R"([2, 1])"));
    BOOST_TEST(!ok(R"([1])", R"([1, 2])"));
    BOOST_TEST(!ok(R"([])", R"({})"));
}

BOOST_AUTO_TEST_CASE(scalars_are_equal_across_number_kinds) {
    BOOST_TEST(ok("1", "1.0"));
    BOOST_TEST(ok("18446744073709551615", "18446744073709551615"));
    BOOST_TEST(!ok("-1", "18446744073709551615"));
    BOOST_TEST(!ok(R"("1")", "1"));
    BOOST_TEST(!ok("null", "false"));
    BOOST_TEST(!ok("1", ""));
}

BOOST_AUTO_TEST_CASE(absent_means_missing_or_null) {
    BOOST_TEST(ok(R"({"a": {"$absent": true}})", R"({})"));
    BOOST_TEST(ok(R"({"a": {"$absent": true}})", R"({"a": null})"));
    BOOST_TEST(!ok(R"({"a": {"$absent": true}})", R"({"a": 0})"));
    BOOST_TEST(ok(R"({"a": {"$absent": false}})", R"({"a": 0})"));
}

BOOST_AUTO_TEST_CASE(any_contains_and_len) {
    BOOST_TEST(ok(R"({"a": {"$any": true}})", R"({"a": null})"));
    BOOST_TEST(!ok(R"({"a": {"$any": true}})", R"({})"));
    BOOST_TEST(ok(R"({"$contains": "ell"})", R"("hello")"));
    BOOST_TEST(!ok(R"({"$contains": "x"})", R"("hello")"));
    BOOST_TEST(!ok(R"({"$contains": "1"})", "1"));
    BOOST_TEST(ok(R"({"$len": 2})", "[1, 2]"));
    BOOST_TEST(ok(R"({"$len": 5})", R"("hello")"));
    BOOST_TEST(!ok(R"({"$len": 1})", "[]"));
    BOOST_TEST(!ok(R"({"$len": 0})", ""));
}

BOOST_AUTO_TEST_CASE(includes_and_excludes_match_elements_partially) {
    BOOST_TEST(ok(R"({"$includes": [{"a": 1}, 3]})", R"([3, {"a": 1, "b": 2}])"));
    BOOST_TEST(!ok(R"({"$includes": [4]})", "[1, 2, 3]"));
    BOOST_TEST(ok(R"({"$excludes": [4, {"a": 2}]})", R"([1, {"a": 1}])"));
    BOOST_TEST(!ok(R"({"$excludes": [{"a": 1}]})", R"([{"a": 1, "b": 2}])"));
    BOOST_TEST(!ok(R"({"$includes": []})", R"({})"));
}

BOOST_AUTO_TEST_CASE(mismatches_name_the_path_and_both_values) {
    auto out = mismatches(R"({"c": [{"d": "x"}], "e": 1})", R"({"c": [{"d": "y"}]})");
    BOOST_TEST_REQUIRE(out.size() == 2u);
    BOOST_TEST(out[0].path == "x.c[0].d");
    BOOST_TEST(out[0].expected == R"("x")");
    BOOST_TEST(out[0].got == R"("y")");
    BOOST_TEST(out[1].path == "x.e");
    BOOST_TEST(out[1].got == "(absent)");
}

BOOST_AUTO_TEST_CASE(check_refuses_unknown_operators_and_bad_operands) {
    BOOST_CHECK_NO_THROW(check_partial(json::parse(R"({"a": [{"$len": 1}, {"$includes": [{"$any": true}]}]})"), "x"));
    BOOST_CHECK_THROW(check_partial(json::parse(R"({"a": {"$nope": 1}})"), "x"), std::invalid_argument);
    BOOST_CHECK_THROW(check_partial(json::parse(R"({"$len": -1})"), "x"), std::invalid_argument);
    BOOST_CHECK_THROW(check_partial(json::parse(R"({"$contains": 1})"), "x"), std::invalid_argument);
    BOOST_CHECK_THROW(check_partial(json::parse(R"({"$includes": 1})"), "x"), std::invalid_argument);
    BOOST_CHECK_THROW(check_partial(json::parse(R"({"$len": 1, "$any": true})"), "x"), std::invalid_argument);
    BOOST_CHECK_THROW(check_partial(json::parse(R"({"$includes": [{"$bad": 1}]})"), "x"), std::invalid_argument);
}

BOOST_AUTO_TEST_SUITE_END()
