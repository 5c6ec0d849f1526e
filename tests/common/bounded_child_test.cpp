// common/bounded_child: how a forked child's work ended, and that one that
// does not end is killed.
#define BOOST_TEST_MODULE bounded_child
#include <boost/test/unit_test.hpp>

#include <signal.h>

#include <chrono>
#include <new>
#include <stdexcept>
#include <vector>

#include "common/bounded_child.hpp"

using namespace liveupdate::common;
using namespace std::chrono_literals;

namespace {

const ChildLimits kLimits{10min, std::size_t{64} << 20};

}  // namespace

BOOST_AUTO_TEST_CASE(work_that_returns_or_throws_finished) {
    BOOST_TEST((run_in_bounded_child([] {}, kLimits, nullptr).end == ChildEnd::finished));
    BOOST_TEST(
        (run_in_bounded_child([] { throw std::runtime_error("x"); }, kLimits, nullptr).end == ChildEnd::finished));
}

BOOST_AUTO_TEST_CASE(work_that_never_ends_is_killed_at_the_deadline) {
    const ChildOutcome outcome = run_in_bounded_child(
        [] {
            for (;;) ::pause();
        },
        {200ms, kLimits.memory_bytes}, nullptr);
    BOOST_TEST((outcome.end == ChildEnd::timed_out));
}

BOOST_AUTO_TEST_CASE(a_crash_is_reported_with_its_signal) {
    const ChildOutcome outcome = run_in_bounded_child([] { ::raise(SIGSEGV); }, kLimits, nullptr);
    BOOST_TEST((outcome.end == ChildEnd::crashed));
    BOOST_TEST(outcome.signal == SIGSEGV);
}

BOOST_AUTO_TEST_CASE(running_out_of_memory_is_reported) {
    BOOST_TEST((run_in_bounded_child([] { throw std::bad_alloc(); }, kLimits, nullptr).end == ChildEnd::out_of_memory));
}

BOOST_AUTO_TEST_CASE(the_memory_limit_stops_growth, *boost::unit_test::precondition([](boost::unit_test::test_unit_id) {
                         return child_memory_limit_applies();
                     })) {
    const ChildOutcome outcome = run_in_bounded_child(
        [] {
            std::vector<std::vector<char>> blocks;
            for (int i = 0; i < 1024; ++i) blocks.emplace_back(std::size_t{1} << 20, 'x');
        },
        {10min, std::size_t{16} << 20}, nullptr);
    BOOST_TEST((outcome.end == ChildEnd::out_of_memory));
}

BOOST_AUTO_TEST_CASE(work_is_abandoned_when_asked) {
    static int checks = 0;
    const ChildOutcome outcome = run_in_bounded_child(
        [] {
            for (;;) ::pause();
        },
        kLimits, []() noexcept { return ++checks == 3; });
    BOOST_TEST((outcome.end == ChildEnd::abandoned));
    BOOST_TEST(checks == 3);
}
