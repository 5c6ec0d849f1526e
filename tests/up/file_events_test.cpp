#include <boost/test/unit_test.hpp>

#include <set>

#include "host/up/event_consumers.hpp"
#include "host/up/file_events.hpp"

using liveupdate::common::MicroTime;
using liveupdate::host::up::EventConsumers;
using liveupdate::host::up::FileEventLog;

namespace {
MicroTime t(int s) { return MicroTime(1'800'000'000'000'000LL + s * 1'000'000LL); }
FileEventLog::ConsumedFn up_to(std::uint64_t last) {
    return [last](std::uint64_t seq) { return seq <= last; };
}
}  // namespace

BOOST_AUTO_TEST_CASE(keeps_the_newest_consumed_events_only) {
    FileEventLog log;
    for (int i = 1; i <= 25; ++i) log.append(t(i), {"/p" + std::to_string(i)}, i, up_to(25), 20);
    BOOST_TEST(log.events().size() == 20u);
    BOOST_TEST(log.events().front().paths.front() == "/p6");
    BOOST_TEST(log.to_json().size() == 20u);
}

// The list stays a run of consecutive batches: a LiveUpdate that has not yet
// seen the oldest ones finds them all, in order, with their own times.
BOOST_AUTO_TEST_CASE(unconsumed_events_stay_until_seen) {
    FileEventLog log;
    for (int i = 1; i <= 25; ++i) log.append(t(i), {"/p" + std::to_string(i)}, i, up_to(2), 20);
    BOOST_TEST(log.events().size() == 23u);  // /p1 and /p2 were seen and dropped
    BOOST_TEST(log.events().front().paths == std::vector<std::string>{"/p3"}, boost::test_tools::per_element());
    BOOST_TEST(log.events().front().time.micros() == t(3).micros());
    log.append(t(26), {"/p26"}, 26, up_to(25), 20);
    BOOST_TEST(log.events().size() == 20u);
    BOOST_TEST(log.events().front().paths == std::vector<std::string>{"/p7"}, boost::test_tools::per_element());
}

// An event that is never seen (a LiveUpdate that never keeps up) is not kept
// forever: past the cap it is folded into the next, losing no path.
BOOST_AUTO_TEST_CASE(past_the_cap_unconsumed_events_are_folded_not_dropped) {
    FileEventLog log;
    for (int i = 1; i <= 5; ++i) log.append(t(i), {"/p" + std::to_string(i)}, i, up_to(0), 2, 3);
    BOOST_TEST(log.events().size() == 3u);
    const auto &oldest = log.events().front();
    BOOST_TEST(oldest.paths == (std::vector<std::string>{"/p1", "/p2", "/p3"}), boost::test_tools::per_element());
    BOOST_TEST(oldest.time.micros() == t(3).micros());
}

BOOST_AUTO_TEST_CASE(paths_of_an_event_are_sorted_and_unique) {
    FileEventLog log;
    log.append(t(1), {"/b", "/a", "/b"}, 1, up_to(0));
    const std::vector<std::string> expected{"/a", "/b"};
    BOOST_TEST(log.events().back().paths == expected, boost::test_tools::per_element());
    const auto json = log.to_json();
    BOOST_TEST(json[0].at("time").as_string() == t(1).format());
    BOOST_TEST(json[0].at("seenFiles").as_array().size() == 2u);
}

// A folded event waits for the batches folded into it: were it dropped once
// its own batch is consumed, the folded paths would be lost to whoever had
// yet to see them.
BOOST_AUTO_TEST_CASE(an_event_holding_a_folded_batch_waits_for_it) {
    FileEventLog log;
    std::set<std::uint64_t> unseen{1};
    const auto consumed = [&](std::uint64_t seq) { return unseen.count(seq) == 0; };
    for (int i = 1; i <= 3; ++i) log.append(t(i), {"/p" + std::to_string(i)}, i, consumed, 1, 2);
    // Batch 1 folded into 2; 2 is consumed itself but still holds 1, so it stays.
    BOOST_TEST(log.events().size() == 2u);
    BOOST_TEST(log.events().front().paths == (std::vector<std::string>{"/p1", "/p2"}),
               boost::test_tools::per_element());
    unseen.clear();
    log.append(t(4), {"/p4"}, 4, consumed, 1, 2);
    BOOST_TEST(log.events().size() == 1u);
    BOOST_TEST(log.events().front().paths == std::vector<std::string>{"/p4"}, boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(a_batch_is_consumed_once_every_live_update_it_made_due_has_seen_it) {
    EventConsumers c;
    c.expect(1, {"a", "b"});
    c.expect(2, {"a"});
    c.expect(3, {});
    BOOST_TEST(c.consumed(3));
    c.reconciled("a", 2);
    BOOST_TEST(!c.consumed(1));  // b has yet to see it
    BOOST_TEST(c.consumed(2));
    c.reconciled("b", 0);  // a reconcile that started before batch 1 was stored does not count
    BOOST_TEST(!c.consumed(1));
    c.reconciled("b", 1);
    BOOST_TEST(c.consumed(1));
}

BOOST_AUTO_TEST_CASE(a_removed_live_update_holds_no_batch_back) {
    EventConsumers c;
    c.expect(1, {"a", "gone"});
    c.reconciled("a", 1);
    BOOST_TEST(!c.consumed(1));
    c.forget("gone");
    BOOST_TEST(c.consumed(1));
}
