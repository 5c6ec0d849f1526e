#include <boost/test/unit_test.hpp>

#include "core/json_fields.hpp"
#include "core/snapshot.hpp"

using namespace liveupdate;

BOOST_AUTO_TEST_SUITE(snapshot)

BOOST_AUTO_TEST_CASE(other_versions_are_refused_clearly) {
    try {
        decode_snapshot(R"({"format":"liveupdate.plugin.state","version":2})");
        BOOST_FAIL("version 2 accepted");
    } catch (const UnsupportedSnapshot &e) {
        BOOST_TEST(std::string(e.what()) == "snapshot version 2 is not supported; this plugin reads version 1");
    }
    BOOST_CHECK_THROW(decode_snapshot(R"({"format":"liveupdate.plugin.state"})"), UnsupportedSnapshot);
    BOOST_CHECK_THROW(decode_snapshot(R"({"format":"other","version":1})"), UnsupportedSnapshot);
    BOOST_CHECK_THROW(decode_snapshot("[]"), UnsupportedSnapshot);
    BOOST_CHECK_THROW(decode_snapshot("{"), json_fields::DecodeError);
}

BOOST_AUTO_TEST_CASE(monitor_round_trips) {
    Monitor m;
    m.manifest = "web";
    m.spec_raw = boost::json::object{{"basePath", "/b"}};
    m.sources["fw"].paths.record("/b/a", MicroTime(7));
    m.sources["fw"].last_file_event = api::FileEvent{MicroTime(7), {"/b/a"}};
    m.containers[{"c1", "", ""}] = ContainerTrack{MicroTime(7), MicroTime(3), "UpdateFailed", "boom"};
    api::LiveUpdateStatus st;
    st.failed = api::LiveUpdateStateFailed{"UpdateFailed", "boom", MicroTime(9)};
    const std::string blob = encode_snapshot(MicroTime(1), {}, {{"lu", SlotView{&m, &st}}});
    const auto state = decode_snapshot(blob);
    BOOST_TEST(state.start_time.micros() == 1);
    const auto &slot = state.slots.at("lu");
    BOOST_REQUIRE(slot.monitor && slot.status);
    BOOST_TEST((*slot.status == st));
    const auto &rm = *slot.monitor;
    BOOST_TEST(rm.manifest == "web");
    BOOST_TEST(rm.sources.at("fw").paths.size() == 1u);
    BOOST_TEST((*rm.sources.at("fw").last_file_event == *m.sources["fw"].last_file_event));
    const auto &c = rm.containers.at({"c1", "", ""});
    BOOST_TEST(c.failed_reason == "UpdateFailed");
    BOOST_TEST(c.failed_low_water_mark.micros() == 3);
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(snapshot_times)

BOOST_AUTO_TEST_CASE(times_rfc3339_cannot_write_are_refused) {
    try {
        decode_snapshot(R"({"format":"liveupdate.plugin.state","version":1,"startTime":9223372036854775807})");
        BOOST_FAIL("accepted a time past year 9999");
    } catch (const json_fields::DecodeError &e) {
        BOOST_TEST(e.field() == "startTime");
    }
}

BOOST_AUTO_TEST_SUITE_END()
