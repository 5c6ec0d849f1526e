#define BOOST_TEST_MODULE up_unit_tests
#include <boost/test/unit_test.hpp>

#include "host/up/debouncer.hpp"

using namespace std::chrono_literals;
using liveupdate::host::up::Debouncer;

BOOST_AUTO_TEST_CASE(nothing_pending_has_no_deadline) {
    Debouncer d(50ms, 10s);
    BOOST_TEST(!d.deadline().has_value());
    BOOST_TEST(!d.ready(Debouncer::Clock::now()));
}

BOOST_AUTO_TEST_CASE(ready_after_quiet_period) {
    Debouncer d(50ms, 10s);
    const auto t0 = Debouncer::Clock::time_point{} + 1h;
    d.add("/a", t0);
    BOOST_TEST(!d.ready(t0 + 49ms));
    BOOST_TEST(d.ready(t0 + 50ms));
}

BOOST_AUTO_TEST_CASE(each_change_restarts_the_quiet_period) {
    Debouncer d(50ms, 10s);
    const auto t0 = Debouncer::Clock::time_point{} + 1h;
    d.add("/a", t0);
    d.add("/b", t0 + 40ms);
    BOOST_TEST(!d.ready(t0 + 60ms));
    BOOST_TEST(d.ready(t0 + 90ms));
}

BOOST_AUTO_TEST_CASE(steady_changes_are_capped_by_max_wait) {
    Debouncer d(50ms, 200ms);
    const auto t0 = Debouncer::Clock::time_point{} + 1h;
    for (int i = 0; i < 10; ++i) d.add("/f" + std::to_string(i), t0 + i * 30ms);
    BOOST_TEST(d.ready(t0 + 200ms));
    BOOST_TEST(!d.ready(t0 + 199ms));
}

BOOST_AUTO_TEST_CASE(take_returns_sorted_unique_paths_and_empties) {
    Debouncer d(0ms, 10s);
    const auto t0 = Debouncer::Clock::time_point{} + 1h;
    d.add("/b", t0);
    d.add("/a", t0);
    d.add("/b", t0);
    BOOST_TEST(d.ready(t0));
    const std::vector<std::string> expected{"/a", "/b"};
    BOOST_TEST(d.take() == expected, boost::test_tools::per_element());
    BOOST_TEST(d.empty());
}

BOOST_AUTO_TEST_CASE(a_complete_file_after_a_quiet_spell_is_ready_at_once) {
    Debouncer d(50ms, 10s);
    const auto t0 = Debouncer::Clock::time_point{} + 1h;
    d.add("/a", t0);  // e.g. the file's truncation or first write
    BOOST_TEST(!d.ready(t0 + 1ms));
    d.add("/a", t0 + 2ms, Debouncer::Change::completed_write);
    BOOST_TEST(d.ready(t0 + 2ms));
    BOOST_TEST(d.take().size() == 1u);
}

BOOST_AUTO_TEST_CASE(what_follows_a_prompt_batch_within_the_quiet_time_is_batched) {
    Debouncer d(50ms, 10s);
    const auto t0 = Debouncer::Clock::time_point{} + 1h;
    d.add("/a", t0, Debouncer::Change::completed_write);
    BOOST_TEST(d.ready(t0));
    d.take();
    // A burst (a checkout) goes on: its complete files wait for the quiet time.
    d.add("/b", t0 + 1ms, Debouncer::Change::completed_write);
    d.add("/c", t0 + 2ms, Debouncer::Change::completed_write);
    BOOST_TEST(!d.ready(t0 + 51ms));
    BOOST_TEST(d.ready(t0 + 52ms));
    d.take();
    // After a quiet spell, the next save is prompt again.
    d.add("/a", t0 + 200ms, Debouncer::Change::completed_write);
    BOOST_TEST(d.ready(t0 + 200ms));
}

BOOST_AUTO_TEST_CASE(an_incomplete_change_alone_waits_for_the_quiet_time) {
    Debouncer d(50ms, 10s);
    const auto t0 = Debouncer::Clock::time_point{} + 1h;
    d.add("/a", t0);  // written to, not yet closed: may be half-written
    BOOST_TEST(!d.ready(t0 + 49ms));
    BOOST_TEST(d.ready(t0 + 50ms));
}
