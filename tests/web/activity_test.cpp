// What a LiveUpdate is doing, from its reconciles.
#include <boost/test/unit_test.hpp>

#include "host/up/activity.hpp"

using namespace liveupdate;
using namespace liveupdate::host::up;
namespace json = boost::json;

BOOST_AUTO_TEST_SUITE(activity)

BOOST_AUTO_TEST_CASE(an_update_is_in_flight_from_its_first_line_to_its_end) {
    Activity a;
    std::vector<std::string> heard;
    a.set_listener(
        [&](const std::string &lu, const ActivityLine *line) { heard.push_back(lu + (line ? ":line" : ":state")); });
    const common::MicroTime t = common::MicroTime::from_system(std::chrono::system_clock::now());
    a.began("web");
    BOOST_TEST(!a.summary().at("web").at("updating").as_bool());
    a.line("web", common::LogLevel::info, "Will copy 1 file(s) to container: [web]", t);
    BOOST_TEST(a.summary().at("web").at("updating").as_bool());
    a.finished("web",
               {json::parse(R"({"type": "started", "filesChanged": ["/src/a.txt"]})").as_object(),
                json::parse(R"({"type": "completed", "error": ""})").as_object()},
               t, std::chrono::microseconds(12'345));
    const json::object s = a.summary().at("web").as_object();
    BOOST_TEST(!s.at("updating").as_bool());
    BOOST_TEST(s.at("lastFiles") == json::parse(R"(["/src/a.txt"])"));
    BOOST_TEST(s.at("lastUpdateAt").as_string() == t.format());
    BOOST_TEST(!s.contains("lastError"));
    BOOST_TEST(heard == (std::vector<std::string>{"web:state", "web:line", "web:state"}));
    BOOST_TEST(a.lines("web").size() == 1u);
}

BOOST_AUTO_TEST_CASE(lines_are_numbered_and_bounded) {
    Activity a;
    const common::MicroTime t = common::MicroTime::from_system(std::chrono::system_clock::now());
    for (std::size_t i = 0; i < Activity::kLinesKept + 10; ++i)
        a.line("web", common::LogLevel::info, std::to_string(i), t);
    a.line("api", common::LogLevel::warn, "other", t);
    const auto lines = a.lines("web");
    BOOST_TEST(lines.size() == Activity::kLinesKept);
    BOOST_TEST(lines.front().text == "10");
    BOOST_TEST(a.lines("api").front().seq == lines.back().seq + 1);
    BOOST_TEST(to_json(a.lines("api").front()).at("level").as_string() == "warn");
}

// The status page's chart: each update's duration and files, the last 50.
BOOST_AUTO_TEST_CASE(recent_updates_keep_the_last_fifty_with_their_time_and_files) {
    Activity a;
    const common::MicroTime t = common::MicroTime::from_system(std::chrono::system_clock::now());
    const auto update = [](std::size_t files, const char *error) {
        json::array changed;
        for (std::size_t i = 0; i < files; ++i) changed.emplace_back("/src/" + std::to_string(i));
        return std::vector<json::object>{json::object{{"type", "started"}, {"filesChanged", changed}},
                                         json::object{{"type", "completed"}, {"error", error}}};
    };
    a.finished("web", {}, t, std::chrono::microseconds(900));  // no update: not charted
    BOOST_TEST(a.summary().at("web").at("recentUpdates").as_array().empty());
    for (std::size_t i = 1; i <= UpdateHistory::kKept + 5; ++i)
        a.finished("web", update(i, i % 10 == 0 ? "exit 1" : ""), t, std::chrono::microseconds(i * 1000 + 250));
    const json::array recent = a.summary().at("web").at("recentUpdates").as_array();
    BOOST_TEST_REQUIRE(recent.size() == UpdateHistory::kKept);
    BOOST_TEST(recent.front().at("files").to_number<std::size_t>() == 6u);  // the oldest five went
    BOOST_TEST(recent.front().at("ms").as_double() == 6.3);                 // to a tenth
    BOOST_TEST(recent.back().at("files").to_number<std::size_t>() == UpdateHistory::kKept + 5);
    BOOST_TEST(recent.back().at("at").as_string() == t.format());
    BOOST_TEST(recent.back().at("failed").as_bool() == false);
    BOOST_TEST(recent[4].at("failed").as_bool());  // the tenth update failed
}

BOOST_AUTO_TEST_SUITE_END()
