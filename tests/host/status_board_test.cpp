#include "host/core/status_board.hpp"

#include <boost/test/unit_test.hpp>

#include <chrono>
#include <string>
#include <thread>

namespace json = boost::json;
using liveupdate::host::StatusBoard;
using namespace std::chrono_literals;

BOOST_AUTO_TEST_SUITE(status_board)

BOOST_AUTO_TEST_CASE(a_status_is_news_once_and_only_for_the_spec_it_was_computed_for) {
    StatusBoard<std::string> board;
    board.watch("web", "project/web");
    auto next = board.next_dirty();
    BOOST_REQUIRE(next.has_value());
    BOOST_TEST(next->first == "web");
    BOOST_TEST(next->second.spec == "project/web");

    const json::object running{{"state", "running"}};
    BOOST_TEST(board.record("web", "project/web", running));
    BOOST_TEST(!board.record("web", "project/web", running));  // the same again: no news
    BOOST_TEST(board.status("web").value() == running);

    board.watch("web", "project/api");  // another service: the old status goes
    BOOST_TEST(!board.status("web").has_value());
    BOOST_TEST(!board.record("web", "project/web", running));  // computed for the old spec
    BOOST_TEST(board.record("web", "project/api", running));

    board.unwatch("web");
    BOOST_TEST(!board.status("web").has_value());
    BOOST_TEST(!board.record("web", "project/api", running));
}

BOOST_AUTO_TEST_CASE(marking_dirty_picks_the_watches_the_predicate_names) {
    StatusBoard<std::string> board;
    board.watch("a", "ns1");
    board.watch("b", "ns2");
    for (int i = 0; i < 2; ++i) BOOST_REQUIRE(board.next_dirty().has_value());

    board.mark_dirty_if([](const std::string &spec) { return spec == "ns2"; });
    const auto next = board.next_dirty();
    BOOST_REQUIRE(next.has_value());
    BOOST_TEST(next->first == "b");

    // A watch the ready check leaves out is taken off the dirty set.
    board.mark_dirty_if(nullptr);
    std::thread stopper([&board] {
        std::this_thread::sleep_for(50ms);
        board.stop();
    });
    const auto none = board.next_dirty([](const std::string &, const auto &) { return false; });
    stopper.join();
    BOOST_TEST(!none.has_value());
}

BOOST_AUTO_TEST_CASE(state_is_set_with_a_new_spec_and_kept_with_the_same) {
    StatusBoard<std::string, int> board;
    int calls = 0;
    const auto stamp = [&calls](auto &w) { w.state = ++calls; };
    board.watch("x", "s1", stamp);
    board.watch("x", "s1", stamp);
    BOOST_TEST(calls == 1);
    board.watch("x", "s2", stamp);
    BOOST_TEST(calls == 2);
    const auto next = board.next_dirty();
    BOOST_REQUIRE(next.has_value());
    BOOST_TEST(next->second.state == 2);
}

BOOST_AUTO_TEST_CASE(a_warning_is_said_once_until_the_source_answers_again) {
    StatusBoard<std::string> board;
    BOOST_TEST(board.first_time("engine down"));
    BOOST_TEST(!board.first_time("engine down"));
    BOOST_TEST(board.first_time("engine refused"));
    board.source_answers();
    BOOST_TEST(board.first_time("engine refused"));
}

BOOST_AUTO_TEST_CASE(stopping_ends_waits_and_refuses_work) {
    StatusBoard<std::string> board;
    bool ran = false;
    BOOST_TEST(board.unless_stopping([&ran] { ran = true; }));
    BOOST_TEST(ran);
    std::thread stopper([&board] {
        std::this_thread::sleep_for(50ms);
        board.stop();
    });
    const auto start = std::chrono::steady_clock::now();
    BOOST_TEST(!board.sleep_for(10s));
    stopper.join();
    BOOST_TEST((std::chrono::steady_clock::now() - start < 5s));
    BOOST_TEST(!board.next_dirty().has_value());
    BOOST_TEST(!board.unless_stopping([] {}));
}

BOOST_AUTO_TEST_SUITE_END()
