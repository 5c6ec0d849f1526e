#include <boost/test/unit_test.hpp>

#include "up/file_events.hpp"

using liveupdate::MicroTime;
using liveupdate::up::FileEventLog;

namespace {
MicroTime t(int s) { return MicroTime(1'800'000'000'000'000LL + s * 1'000'000LL); }
}  // namespace

BOOST_AUTO_TEST_CASE(keeps_the_newest_consumed_events_only) {
    FileEventLog log;
    for (int i = 1; i <= 25; ++i) log.append(t(i), {"/p" + std::to_string(i)}, i, /*consumed=*/25, 20);
    BOOST_TEST(log.events().size() == 20u);
    BOOST_TEST(log.events().front().paths.front() == "/p6");
    BOOST_TEST(log.to_json().size() == 20u);
}

BOOST_AUTO_TEST_CASE(unconsumed_events_are_folded_not_dropped) {
    FileEventLog log;
    for (int i = 1; i <= 25; ++i) log.append(t(i), {"/p" + std::to_string(i)}, i, /*consumed=*/2, 20);
    BOOST_TEST(log.events().size() == 20u);
    // /p1 and /p2 were consumed and dropped; /p3../p6 live on in the oldest event, with its newer time.
    const auto &oldest = log.events().front();
    const std::vector<std::string> expected{"/p3", "/p4", "/p5", "/p6"};
    BOOST_TEST(oldest.paths == expected, boost::test_tools::per_element());
    BOOST_TEST(oldest.time.micros() == t(6).micros());
}

BOOST_AUTO_TEST_CASE(paths_of_an_event_are_sorted_and_unique) {
    FileEventLog log;
    log.append(t(1), {"/b", "/a", "/b"}, 1, 0);
    const std::vector<std::string> expected{"/a", "/b"};
    BOOST_TEST(log.events().back().paths == expected, boost::test_tools::per_element());
    const auto json = log.to_json();
    BOOST_TEST(json[0].at("time").as_string() == t(1).format());
    BOOST_TEST(json[0].at("seenFiles").as_array().size() == 2u);
}
