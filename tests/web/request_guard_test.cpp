// Who may read the status page and who may trigger: Host, secret (cookie or
// Bearer), Origin, token.
#include <boost/test/unit_test.hpp>

#include "host/web/request_guard.hpp"

using namespace liveupdate::host::web;

namespace {
const std::string kToken = "0123456789abcdef0123456789abcdef";
const std::string kSecret = "fedcba9876543210fedcba9876543210";
Guard loopback() { return Guard::for_address("127.0.0.1", 10351, kToken, kSecret); }
constexpr Credential kCookie = Credential::cookie;
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
    const Guard g = Guard::for_address("192.168.1.5", 8000, kToken, kSecret);
    BOOST_TEST(!refuse_request(g, "192.168.1.5:8000"));
    BOOST_TEST(refuse_request(g, "localhost:8000").has_value());
}

BOOST_AUTO_TEST_CASE(the_page_itself_may_trigger) {
    BOOST_TEST(!refuse_state_change(loopback(), "127.0.0.1:10351", "http://127.0.0.1:10351", kToken, kCookie));
    BOOST_TEST(!refuse_state_change(loopback(), "localhost:10351", "http://localhost:10351", kToken, kCookie));
}

BOOST_AUTO_TEST_CASE(another_origin_may_not_trigger_even_with_the_token) {
    const auto why = refuse_state_change(loopback(), "127.0.0.1:10351", "http://evil.example", kToken, kCookie);
    BOOST_TEST_REQUIRE(why.has_value());
    BOOST_TEST(why->find("evil.example") != std::string::npos);
    BOOST_TEST(refuse_state_change(loopback(), "127.0.0.1:10351", "null", kToken, kCookie).has_value());
    BOOST_TEST(
        refuse_state_change(loopback(), "127.0.0.1:10351", "http://localhost:10351", kToken, kCookie).has_value());
}

BOOST_AUTO_TEST_CASE(no_origin_or_a_wrong_token_may_not_trigger) {
    BOOST_TEST(refuse_state_change(loopback(), "127.0.0.1:10351", "", kToken, kCookie).has_value());
    BOOST_TEST(refuse_state_change(loopback(), "127.0.0.1:10351", "http://127.0.0.1:10351", "", kCookie).has_value());
    BOOST_TEST(refuse_state_change(loopback(), "127.0.0.1:10351", "http://127.0.0.1:10351",
                                   "0123456789abcdef0123456789abcdee", kCookie)
                   .has_value());
    BOOST_TEST(refuse_state_change(loopback(), "127.0.0.1:10351", "http://127.0.0.1:10351", kToken + "0", kCookie)
                   .has_value());
}

BOOST_AUTO_TEST_CASE(the_secret_comes_as_this_port_s_cookie_or_a_bearer_header) {
    const Guard g = loopback();
    BOOST_TEST(g.cookie_name == "lu-host-10351");
    BOOST_TEST((credential_of(g, "lu-host-10351=" + kSecret, "") == Credential::cookie));
    BOOST_TEST((credential_of(g, "a=b; lu-host-10351=" + kSecret + "; c=d", "") == Credential::cookie));
    BOOST_TEST((credential_of(g, "", "Bearer " + kSecret) == Credential::bearer));
    BOOST_TEST((credential_of(g, "lu-host-10352=" + kSecret, "") == Credential::none));  // another daemon's
    BOOST_TEST((credential_of(g, "lu-host-10351=" + kToken, "") == Credential::none));   // the page token is no key
    BOOST_TEST((credential_of(g, "", "Bearer " + kSecret + "0") == Credential::none));
    BOOST_TEST((credential_of(g, "", "Basic " + kSecret) == Credential::none));
    BOOST_TEST((credential_of(g, "", "") == Credential::none));
}

BOOST_AUTO_TEST_CASE(query_parameters_by_name) {
    BOOST_TEST(query_parameter("/?token=abc", "token").value_or("-") == "abc");
    BOOST_TEST(query_parameter("/x?a=1&token=abc&b=2", "token").value_or("-") == "abc");
    BOOST_TEST(!query_parameter("/x?mytoken=abc", "token"));
    BOOST_TEST(!query_parameter("/token=abc", "token"));
}

BOOST_AUTO_TEST_CASE(a_script_triggers_with_a_bearer_header_alone) {
    BOOST_TEST(!refuse_state_change(loopback(), "127.0.0.1:10351", "", "", Credential::bearer));
    BOOST_TEST(
        refuse_state_change(loopback(), "127.0.0.1:10351", "http://evil.example", "", Credential::bearer).has_value());
    BOOST_TEST(refuse_state_change(loopback(), "127.0.0.1:10351", "http://127.0.0.1:10351", kToken, Credential::none)
                   .has_value());
}

BOOST_AUTO_TEST_CASE(tokens_are_random_and_32_hex_digits) {
    const std::string a = random_token(), b = random_token();
    BOOST_TEST(a.size() == 32u);
    BOOST_TEST(a.find_first_not_of("0123456789abcdef") == std::string::npos);
    BOOST_TEST(a != b);
}

BOOST_AUTO_TEST_SUITE_END()
