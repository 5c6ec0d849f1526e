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

// The text is written directly, not through a JSON tree; it must stay what a
// version 1 reader expects, byte for byte (this is the tree's serialization).
BOOST_AUTO_TEST_CASE(text_is_stable_and_dependencies_stay_shared) {
    const auto dcs = std::make_shared<const api::ApiObject>(api::decode_api_object(boost::json::parse(
        R"({"apiVersion":"tilt.dev/v1alpha1","kind":"DockerComposeService","metadata":{"name":"web"},)"
        R"("status":{"containerID":"c1"}})")));
    Monitor m;
    m.manifest = "web";
    m.spec_raw = boost::json::object{{"basePath", "/b"}};
    m.last_docker_compose_service = dcs;
    SourceTrack &s = m.sources["fw"];
    s.paths.record("/b/\"a\"", MicroTime(7));
    s.ignores.push_back(api::IgnoreDef{"/b", {"*.o"}});
    s.last_image_status = boost::json::object{{"ok", true}};
    s.last_file_event = api::FileEvent{MicroTime(7), {"/b/\"a\""}};
    m.containers[{"c1", "", ""}] = ContainerTrack{MicroTime(7), MicroTime(3), "UpdateFailed", "line\nnext"};
    m.last_trigger_queue = api::ConfigMap{{{"web", "1"}}};
    api::LiveUpdateStatus st;
    st.failed = api::LiveUpdateStateFailed{"UpdateFailed", "boom", MicroTime(9)};
    const std::string blob =
        encode_snapshot(MicroTime(1), {dcs}, {{"lu", SlotView{&m, &st}}, {"idle", SlotView{nullptr, nullptr}}});
    const std::string expected =
        R"({"format":"liveupdate.plugin.state","version":1,"startTime":1,"objects":[)"
        R"({"apiVersion":"tilt.dev/v1alpha1","kind":"DockerComposeService","metadata":{"name":"web"},)"
        R"("status":{"containerID":"c1"}}],"liveUpdates":[{"name":"idle","status":null,"monitor":null},)"
        R"({"name":"lu","status":{"failed":{"reason":"UpdateFailed","message":"boom",)"
        R"("lastTransitionTime":"1970-01-01T00:00:00.000009Z"}},"monitor":{"manifest":"web",)"
        R"("spec":{"basePath":"/b"},"hasChangesToSync":false,"lastKubernetesDiscovery":null,)"
        R"("lastKubernetesApply":null,"lastImageMap":null,"lastDockerComposeService":)"
        R"({"apiVersion":"tilt.dev/v1alpha1","kind":"DockerComposeService","metadata":{"name":"web"},)"
        R"("status":{"containerID":"c1"}},"lastLocalContainer":null,"sources":[{"fileWatch":"fw",)"
        R"("paths":[["/b/\"a\"",7]],"ignores":[{"basePath":"/b","patterns":["*.o"]}],"imageBuildStartTime":0,)"
        R"("lastImageStatus":{"value":{"ok":true}},"lastFileEvent":{"time":7,"seenFiles":["/b/\"a\""]}}],)"
        R"("containers":[{"containerID":"c1","podName":"","namespace":"","lastFileTimeSynced":7,)"
        R"("failedLowWaterMark":3,"failedReason":"UpdateFailed","failedMessage":"line\nnext"}],)"
        R"("lastTriggerQueue":{"web":"1"}}}]})";
    BOOST_TEST(blob == expected);

    const auto state = decode_snapshot(blob);
    BOOST_REQUIRE(state.objects.size() == 1u);
    const auto &rm = *state.slots.at("lu").monitor;
    BOOST_TEST((rm.last_docker_compose_service == state.objects[0]));
    BOOST_TEST((*rm.sources.at("fw").last_image_status == boost::json::value(boost::json::object{{"ok", true}})));
    BOOST_TEST(rm.sources.at("fw").ignores.size() == 1u);
    BOOST_TEST(rm.last_trigger_queue->data.at("web") == "1");
}

BOOST_AUTO_TEST_CASE(documents_are_written_as_boost_serializes_them) {
    // Values of every kind, escapes, non-ASCII text, big and negative numbers and doubles.
    const auto object = std::make_shared<const api::ApiObject>(api::decode_api_object(boost::json::parse(
        R"({"apiVersion":"tilt.dev/v1alpha1","kind":"DockerComposeService","metadata":{"name":"web",)"
        R"("labels":{"quote\"tab\t":"\u0001ctl","päth":"日本","slash":"/a/b"}},)"
        R"("status":{"containerID":"c1","n":[0,-9223372036854775808,18446744073709551615,1.0,-2.5,)"
        R"(1e300,0.1,true,false,null,[],{}],"nested":{"a":[{"b":[]}]}}})")));
    Monitor m;
    m.spec_raw = object->raw;
    m.last_docker_compose_service = object;
    api::LiveUpdateStatus st;
    const std::string blob = encode_snapshot(MicroTime(1), {object}, {{"lu", SlotView{&m, &st}}});
    BOOST_TEST(blob == boost::json::serialize(boost::json::parse(blob)));
    BOOST_TEST(blob.find(boost::json::serialize(object->raw)) != std::string::npos);
    const auto state = decode_snapshot(blob);
    BOOST_TEST((state.objects.at(0)->raw == object->raw));
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
