#include <boost/test/unit_test.hpp>

#include <boost/json.hpp>

#include "plugin/core/monitor.hpp"

using namespace liveupdate;

namespace {

api::ApiObject file_watch(const std::vector<std::pair<int, std::string>> &events) {
    boost::json::array arr;
    for (const auto &[t, path] : events)
        arr.push_back(boost::json::object{{"time", common::MicroTime(t * 1'000'000LL).format()},
                                          {"seenFiles", boost::json::array{boost::json::value(path)}}});
    return api::decode_api_object(boost::json::object{
        {"kind", "FileWatch"}, {"metadata", {{"name", "fw"}}}, {"status", {{"fileEvents", std::move(arr)}}}});
}

api::ApiObject image_map(int build_start) {
    return api::decode_api_object(
        boost::json::object{{"kind", "ImageMap"},
                            {"metadata", {{"name", "im"}}},
                            {"status", {{"buildStartTime", common::MicroTime(build_start * 1'000'000LL).format()}}}});
}

std::vector<std::string> paths_after(const Monitor &m, int second) {
    return files_changed_after(m, common::MicroTime(second * 1'000'000LL)).files;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(monitor)

BOOST_AUTO_TEST_CASE(consumes_only_when_the_newest_event_changes) {
    Monitor m;
    auto &src = m.sources["fw"];
    BOOST_TEST(consume_source(src, file_watch({{1, "/a"}}), nullptr));
    BOOST_TEST(!consume_source(src, file_watch({{1, "/a"}}), nullptr));
    BOOST_TEST(consume_source(src, file_watch({{1, "/a"}, {2, "/b"}}), nullptr));
    BOOST_TEST((paths_after(m, 0) == std::vector<std::string>{"/a", "/b"}));
    // The list lost its oldest event (a capped history): nothing is lost, the new one counts.
    BOOST_TEST(consume_source(src, file_watch({{2, "/b"}, {3, "/c"}}), nullptr));
    BOOST_TEST((paths_after(m, 2) == std::vector<std::string>{"/c"}));
}

BOOST_AUTO_TEST_CASE(events_older_than_the_image_build_are_ignored) {
    Monitor m;
    auto &src = m.sources["fw"];
    const auto im = image_map(5);
    consume_source(src, file_watch({{4, "/old"}, {5, "/edge"}, {6, "/new"}}), &im);
    BOOST_TEST((paths_after(m, 0) == std::vector<std::string>{"/edge", "/new"}));
}

BOOST_AUTO_TEST_CASE(gc_forgets_changes_and_failures_before_the_build) {
    Monitor m;
    auto &src = m.sources["fw"];
    consume_source(src, file_watch({{1, "/a"}, {3, "/b"}}), nullptr);
    m.containers[{"c", "", ""}].failure =
        ContainerFailure{"UpdateStopped", "stop", common::MicroTime(1'000'000), common::MicroTime(500'000)};
    garbage_collect_file_changes(m, {{"fw", ""}}, common::MicroTime(2'000'000));
    BOOST_TEST((paths_after(m, 0) == std::vector<std::string>{"/b"}));
    // All of it, its container's start time too (it outlived the rest before).
    BOOST_TEST(!m.containers.at({"c", "", ""}).failure.has_value());
}

BOOST_AUTO_TEST_CASE(changed_files_track_marks) {
    Monitor m;
    consume_source(m.sources["fw"], file_watch({{1, "/a"}, {3, "/b"}, {2, "/a"}}), nullptr);
    const auto changed = files_changed_after(m, common::MicroTime(1'000'000));
    BOOST_TEST((changed.files == std::vector<std::string>{"/a", "/b"}));
    BOOST_TEST(changed.new_high_water_mark.micros() == 3'000'000);
    BOOST_TEST(changed.new_low_water_mark.micros() == 2'000'000);
}

BOOST_AUTO_TEST_SUITE_END()
