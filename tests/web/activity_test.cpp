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
               t);
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

BOOST_AUTO_TEST_SUITE_END()
