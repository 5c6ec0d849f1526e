// wait_outcome: a failed wait's check reports the state after the wait.
#include <boost/test/unit_test.hpp>

#include <string>

#include "tests/support/wait_outcome.hpp"

using liveupdate::test::wait_outcome;

BOOST_AUTO_TEST_SUITE(wait_outcome_suite)

BOOST_AUTO_TEST_CASE(a_failed_wait_is_described_by_the_state_after_it) {
    std::string state = "before the wait";
    const auto wait = [&] {
        state = "after the wait";
        return false;
    };
    const auto outcome = wait_outcome(wait(), [&] { return state; });
    BOOST_TEST(!outcome);
    BOOST_TEST(std::string(outcome.message().begin(), outcome.message().end()) == "after the wait");
}

BOOST_AUTO_TEST_CASE(a_met_wait_is_not_described) {
    int described = 0;
    const auto outcome = wait_outcome(true, [&] {
        ++described;
        return std::string("unused");
    });
    BOOST_TEST(static_cast<bool>(outcome));
    BOOST_TEST(described == 0);
}

BOOST_AUTO_TEST_SUITE_END()
