// Who may read the status page and who may trigger: Host, Origin, token.
#include <boost/test/unit_test.hpp>

#include "host/web/request_guard.hpp"

using namespace liveupdate::host::web;

namespace {
const std::string kToken = "0123456789abcdef0123456789abcdef";
Guard loopback() { return Guard::for_address("127.0.0.1", 10351, kToken); }
}  // namespace

BOOST_AUTO_TEST_SUITE(request_guard)

BOOST_AUTO_TEST_CASE(loopback_answers_as_its_loopback_names_only) {
    const Guard g = loopback();
    BOOST_TEST(!refuse_request(g, "127.0.0.1:10351"));
    BOOST_TEST(!refuse_request(g, "localhost:10351"));
    BOOST_TEST(!refuse_request(g, "[::1]:10351"));
    // DNS rebinding: a name of the attacker's that resolves to 127.0.0.1.
    BOOST_TEST(refuse_request(g, "evil.example:10351").has_value());
    BOOST_TEST(refuse_request(g, "127.0.0.1:9999").has_value());
    BOOST_TEST(refuse_request(g, "").has_value());
}

BOOST_AUTO_TEST_CASE(another_address_answers_only_as_itself) {
    const Guard g = Guard::for_address("192.168.1.5", 8000, kToken);
    BOOST_TEST(!refuse_request(g, "192.168.1.5:8000"));
    BOOST_TEST(refuse_request(g, "localhost:8000").has_value());
}

BOOST_AUTO_TEST_CASE(the_page_itself_may_trigger) {
    BOOST_TEST(!refuse_state_change(loopback(), "127.0.0.1:10351", "http://127.0.0.1:10351", kToken));
    BOOST_TEST(!refuse_state_change(loopback(), "localhost:10351", "http://localhost:10351", kToken));
}

BOOST_AUTO_TEST_CASE(another_origin_may_not_trigger_even_with_the_token) {
    const auto why = refuse_state_change(loopback(), "127.0.0.1:10351", "http://evil.example", kToken);
    BOOST_TEST_REQUIRE(why.has_value());
    BOOST_TEST(why->find("evil.example") != std::string::npos);
    BOOST_TEST(refuse_state_change(loopback(), "127.0.0.1:10351", "null", kToken).has_value());
    BOOST_TEST(refuse_state_change(loopback(), "127.0.0.1:10351", "http://localhost:10351", kToken).has_value());
}

BOOST_AUTO_TEST_CASE(no_origin_or_a_wrong_token_may_not_trigger) {
    BOOST_TEST(refuse_state_change(loopback(), "127.0.0.1:10351", "", kToken).has_value());
    BOOST_TEST(refuse_state_change(loopback(), "127.0.0.1:10351", "http://127.0.0.1:10351", "").has_value());
    BOOST_TEST(refuse_state_change(loopback(), "127.0.0.1:10351", "http://127.0.0.1:10351",
                                   "0123456789abcdef0123456789abcdee")
                   .has_value());
    BOOST_TEST(refuse_state_change(loopback(), "127.0.0.1:10351", "http://127.0.0.1:10351", kToken + "0").has_value());
}

BOOST_AUTO_TEST_CASE(tokens_are_random_and_32_hex_digits) {
    const std::string a = random_token(), b = random_token();
    BOOST_TEST(a.size() == 32u);
    BOOST_TEST(a.find_first_not_of("0123456789abcdef") == std::string::npos);
    BOOST_TEST(a != b);
}

BOOST_AUTO_TEST_SUITE_END()
