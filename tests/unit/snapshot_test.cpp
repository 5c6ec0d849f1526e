#include <boost/test/unit_test.hpp>
#include <cstring>

#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "common/json_fields.hpp"
#include "plugin/core/snapshot.hpp"

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
    BOOST_CHECK_THROW(decode_snapshot("{"), common::DecodeError);
}

BOOST_AUTO_TEST_CASE(monitor_round_trips) {
    Monitor m;
    m.manifest = "web";
    m.spec_raw = boost::json::object{{"basePath", "/b"}};
    m.sources["fw"].paths.record("/b/a", common::MicroTime(7));
    m.sources["fw"].last_file_event = api::FileEvent{common::MicroTime(7), {"/b/a"}};
    m.containers[{"c1", "", ""}] = ContainerTrack{
        common::MicroTime(7), ContainerFailure{"UpdateFailed", "boom", common::MicroTime(3), common::MicroTime(5)},
        common::MicroTime()};
    api::LiveUpdateStatus st;
    st.failed = api::LiveUpdateStateFailed{"UpdateFailed", "boom", common::MicroTime(9)};
    const std::string blob = encode_snapshot(common::MicroTime(1), {}, {{"lu", EntryToWrite{&m, &st}}});
    const auto state = decode_snapshot(blob);
    BOOST_TEST(state.start_time.micros() == 1);
    const auto &entry = state.live_updates.at("lu");
    BOOST_REQUIRE(entry.monitor && entry.status);
    BOOST_TEST((*entry.status == st));
    const auto &rm = *entry.monitor;
    BOOST_TEST(rm.manifest == "web");
    BOOST_TEST(rm.sources.at("fw").paths.size() == 1u);
    BOOST_TEST((*rm.sources.at("fw").last_file_event == *m.sources["fw"].last_file_event));
    const auto &c = rm.containers.at({"c1", "", ""});
    BOOST_REQUIRE(c.failure);
    BOOST_TEST(c.failure->reason == "UpdateFailed");
    BOOST_TEST(c.failure->low_water_mark.micros() == 3);
    BOOST_TEST(c.failure->container_started_at.micros() == 5);
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
    s.paths.record("/b/\"a\"", common::MicroTime(7));
    s.ignores.push_back(common::IgnoreDef{"/b", {"*.o"}});
    s.last_image_status = boost::json::object{{"ok", true}};
    s.last_file_event = api::FileEvent{common::MicroTime(7), {"/b/\"a\""}};
    m.containers[{"c1", "", ""}] = ContainerTrack{
        common::MicroTime(7), ContainerFailure{"UpdateFailed", "line\nnext", common::MicroTime(3), common::MicroTime()},
        common::MicroTime()};
    m.last_trigger_queue = api::ConfigMap{{{"web", "1"}}};
    api::LiveUpdateStatus st;
    st.failed = api::LiveUpdateStateFailed{"UpdateFailed", "boom", common::MicroTime(9)};
    const std::string blob = encode_snapshot(common::MicroTime(1), {dcs},
                                             {{"lu", EntryToWrite{&m, &st}}, {"idle", EntryToWrite{nullptr, nullptr}}});
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
        R"("failedLowWaterMark":3,"failedReason":"UpdateFailed","failedMessage":"line\nnext",)"
        R"("failedContainerStartedAt":0}],)"
        R"("lastTriggerQueue":{"web":"1"}}}]})";
    BOOST_TEST(blob == expected);

    const auto state = decode_snapshot(blob);
    BOOST_REQUIRE(state.objects.size() == 1u);
    const auto &rm = *state.live_updates.at("lu").monitor;
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
    const std::string blob = encode_snapshot(common::MicroTime(1), {object}, {{"lu", EntryToWrite{&m, &st}}});
    BOOST_TEST(blob == boost::json::serialize(boost::json::parse(blob)));
    BOOST_TEST(blob.find(boost::json::serialize(object->raw)) != std::string::npos);
    const auto state = decode_snapshot(blob);
    BOOST_TEST((state.objects.at(0)->raw == object->raw));
}

// Enough LiveUpdates for two threads to share the writing and the decoding.
BOOST_AUTO_TEST_CASE(a_large_state_round_trips_and_reports_the_first_bad_entry) {
    constexpr int kLiveUpdates = 600;
    std::vector<api::ObjectPtr> objects;
    std::vector<Monitor> monitors(kLiveUpdates);
    std::vector<api::LiveUpdateStatus> statuses(kLiveUpdates);
    std::map<std::string, EntryToWrite> entries;
    for (int i = 0; i < kLiveUpdates; ++i) {
        const std::string n = std::to_string(i);
        std::string text = R"({"apiVersion":"tilt.dev/v1alpha1","kind":"DockerComposeService","metadata":{"name":"svc)";
        text.append(n).append(R"("},"status":{"containerID":"c)").append(n).append(R"("}})");
        objects.push_back(std::make_shared<const api::ApiObject>(api::decode_api_object(boost::json::parse(text))));
        monitors[i].manifest = "m" + n;
        monitors[i].spec_raw = boost::json::object{{"basePath", "/b" + n}};
        monitors[i].last_docker_compose_service = objects.back();
        monitors[i].sources["fw"].paths.record("/b" + n + "/f", common::MicroTime(i + 1));
        monitors[i].containers[{"c" + n, "", ""}] =
            ContainerTrack{common::MicroTime(i + 1), std::nullopt, common::MicroTime()};
        statuses[i].failed = api::LiveUpdateStateFailed{"Reason" + n, "", common::MicroTime(i + 1)};
        entries["lu" + n] = EntryToWrite{&monitors[i], &statuses[i]};
    }
    const std::string blob = encode_snapshot(common::MicroTime(1), objects, entries);
    BOOST_TEST(blob == boost::json::serialize(boost::json::parse(blob)));

    const EngineState state = decode_snapshot(blob);
    BOOST_TEST_REQUIRE(state.objects.size() == std::size_t{kLiveUpdates});
    BOOST_TEST_REQUIRE(state.live_updates.size() == std::size_t{kLiveUpdates});
    std::vector<api::ObjectPtr> objects_again = state.objects;
    std::map<std::string, EntryToWrite> entries_again;
    for (const auto &[name, entry] : state.live_updates) {
        BOOST_TEST_REQUIRE((entry.monitor && entry.status));
        BOOST_TEST(entry.monitor->last_docker_compose_service != nullptr);
        entries_again[name] = EntryToWrite{&*entry.monitor, &*entry.status};
    }
    BOOST_TEST(encode_snapshot(common::MicroTime(1), objects_again, entries_again) == blob);
    // The dependency is shared with the stored object, as before the snapshot.
    const auto &lu450 = *state.live_updates.at("lu450").monitor;
    BOOST_TEST(std::count(state.objects.begin(), state.objects.end(), lu450.last_docker_compose_service) == 1);

    // Bad entries in both halves: the lowest index is named, as one thread would.
    boost::json::value broken = boost::json::parse(blob);
    auto &lus = broken.at("liveUpdates").as_array();
    lus.at(450).at("monitor").as_object()["containers"] = "not a list";
    const auto field_of = [](const boost::json::value &v) {
        try {
            decode_snapshot(boost::json::serialize(v));
        } catch (const common::DecodeError &e) {
            return e.field();
        }
        return std::string("no error");
    };
    BOOST_TEST(field_of(broken) == "liveUpdates[450].monitor.containers");
    lus.at(100).at("monitor").as_object()["containers"] = "not a list";
    BOOST_TEST(field_of(broken) == "liveUpdates[100].monitor.containers");
    broken.at("objects").as_array().at(500).as_object()["kind"] = 7;
    BOOST_TEST(field_of(broken) == "objects[500].kind");
}

// Large snapshots say where their second half of liveUpdates lies, so that
// it is parsed on a second thread. Still version 1: without that member (a
// plugin before it), or with one that does not match the text, the state read
// is the same.
BOOST_AUTO_TEST_CASE(the_second_half_is_found_without_parsing_and_is_optional) {
    constexpr int kLiveUpdates = 600;
    std::vector<Monitor> monitors(kLiveUpdates);
    std::vector<api::LiveUpdateStatus> statuses(kLiveUpdates);
    std::map<std::string, EntryToWrite> entries;
    for (int i = 0; i < kLiveUpdates; ++i) {
        monitors[i].manifest = "m" + std::to_string(i);
        monitors[i].spec_raw = boost::json::object{{"basePath", "/b" + std::to_string(i)}};
        entries["lu" + std::to_string(i)] = EntryToWrite{&monitors[i], &statuses[i]};
    }
    const std::string blob = encode_snapshot(common::MicroTime(1), {}, entries);
    const std::size_t trailer = blob.rfind(std::string(",\"") + kTailKey + "\":[");
    BOOST_TEST_REQUIRE(trailer != std::string::npos);
    BOOST_TEST(blob.size() - trailer < 64u);
    const auto reencoded = [](const std::string &text) {
        const EngineState state = decode_snapshot(text);
        std::map<std::string, EntryToWrite> again;
        for (const auto &[name, entry] : state.live_updates)
            again[name] = EntryToWrite{&*entry.monitor, &*entry.status};
        BOOST_TEST(again.size() == std::size_t{kLiveUpdates});
        return encode_snapshot(state.start_time, state.objects, again);
    };
    BOOST_TEST(reencoded(blob) == blob);
    const std::string without = blob.substr(0, trailer) + "}";
    BOOST_TEST(reencoded(without) == blob);
    // A range that is off by one is not believed: the whole text is parsed.
    const boost::json::array range = boost::json::parse(blob).at(kTailKey).as_array();
    std::string off_by_one = without;
    off_by_one.insert(off_by_one.size() - 1, std::string(",\"") + kTailKey + "\":[" +
                                                 std::to_string(range.at(0).as_int64() + 1) + "," +
                                                 std::to_string(range.at(1).as_int64()) + "]");
    BOOST_TEST(reencoded(off_by_one) == blob);

    // An error in the second half is named by its index in the whole list.
    const auto at = static_cast<std::size_t>(std::distance(entries.begin(), entries.find("lu450")));
    BOOST_TEST_REQUIRE(at >= std::size_t{kLiveUpdates / 2});
    std::string broken = blob;
    const std::size_t lu450 = broken.find(R"("manifest":"m450")");
    const std::size_t flag = broken.find(R"("hasChangesToSync":false)", lu450);
    BOOST_TEST_REQUIRE(flag != std::string::npos);
    broken.replace(flag, std::strlen(R"("hasChangesToSync":false)"), R"("hasChangesToSync":"abc")");
    try {
        decode_snapshot(broken);
        BOOST_FAIL("a bad entry accepted");
    } catch (const common::DecodeError &e) {
        BOOST_TEST(e.field() == "liveUpdates[" + std::to_string(at) + "].monitor.hasChangesToSync");
    }
    // A key given twice in the second half is refused as in the first.
    // (The same length, so that the tail's range still holds.)
    std::string twice = blob;
    twice.replace(flag, std::strlen(R"("hasChangesToSync":false)"), R"("manifest":"m450-twice!")");
    try {
        decode_snapshot(twice);
        BOOST_FAIL("a key given twice accepted");
    } catch (const common::DecodeError &e) {
        BOOST_TEST(std::string(e.what()).find("duplicate key \"manifest\"") != std::string::npos);
    }
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(snapshot_times)

BOOST_AUTO_TEST_CASE(times_rfc3339_cannot_write_are_refused) {
    try {
        decode_snapshot(R"({"format":"liveupdate.plugin.state","version":1,"startTime":9223372036854775807})");
        BOOST_FAIL("accepted a time past year 9999");
    } catch (const common::DecodeError &e) {
        BOOST_TEST(e.field() == "startTime");
    }
}

BOOST_AUTO_TEST_SUITE_END()
