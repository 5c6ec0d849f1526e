#include <boost/test/unit_test.hpp>

#include "plugin/core/status.hpp"

using namespace liveupdate;

BOOST_AUTO_TEST_SUITE(status)

BOOST_AUTO_TEST_CASE(transition_time_kept_while_reason_unchanged) {
    api::LiveUpdateStatus previous;
    previous.failed = api::LiveUpdateStateFailed{"UpdateStopped", "old message", common::MicroTime(100)};
    const auto same = create_failed_state(previous, "UpdateStopped", "new message", common::MicroTime(200));
    BOOST_TEST(same.last_transition_time.micros() == 100);
    BOOST_TEST(same.message == "new message");
    const auto other = create_failed_state(previous, "UpdateFailed", "x", common::MicroTime(200));
    BOOST_TEST(other.last_transition_time.micros() == 200);
    const auto fresh = create_failed_state(api::LiveUpdateStatus{}, "Invalid", "x", common::MicroTime(300));
    BOOST_TEST(fresh.last_transition_time.micros() == 300);
}

BOOST_AUTO_TEST_CASE(equal_statuses_compare_equal_and_differences_show) {
    api::LiveUpdateStatus a;
    a.containers.push_back({"web", "c1", "", "", common::MicroTime(1), "", std::nullopt});
    api::LiveUpdateStatus b = a;
    BOOST_TEST((a == b));
    b.containers[0].last_exec_error = "boom";
    BOOST_TEST(!(a == b));
    b = a;
    b.containers[0].waiting = api::LiveUpdateContainerStateWaiting{"ContainerWaiting", ""};
    BOOST_TEST(!(a == b));
}

BOOST_AUTO_TEST_CASE(encoding_omits_empty_parts_like_tilt) {
    BOOST_TEST(boost::json::serialize(api::encode_live_update_status({})) == "{}");
    api::LiveUpdateStatus s;
    s.containers.push_back({"web", "", "", "", common::MicroTime{}, "", std::nullopt});
    BOOST_TEST(boost::json::serialize(api::encode_live_update_status(s)) ==
               R"({"containers":[{"containerName":"web","podName":"","namespace":""}]})");
    const auto encoded = api::encode_live_update_status(s);
    const auto round = api::decode_live_update_status(&encoded.as_object());
    BOOST_TEST((round == s));
}

BOOST_AUTO_TEST_SUITE_END()
