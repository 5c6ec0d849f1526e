// Large snapshots: the index of their liveUpdates, what a restore believes of
// it, and the engine decoding each LiveUpdate after restore returned.
#include <boost/test/unit_test.hpp>

#include <map>
#include <mutex>
#include <string>
#include <vector>

#define XXH_INLINE_ALL
#include <xxhash.h>

#include "common/json_fields.hpp"
#include "plugin/core/engine.hpp"
#include "plugin/core/snapshot_index.hpp"
#include "tests/support/temp_dir.hpp"

using namespace liveupdate;

namespace {

constexpr int kLiveUpdates = 40;  // indexed, and written by one thread

// A state of kLiveUpdates LiveUpdates, each monitor sharing its compose
// service; the objects in the order the engine's store keeps them.
struct LargeState {
    std::vector<api::ObjectPtr> objects;
    std::vector<api::ObjectPtr> services;
    std::vector<Monitor> monitors = std::vector<Monitor>(kLiveUpdates);
    std::vector<api::LiveUpdateStatus> statuses = std::vector<api::LiveUpdateStatus>(kLiveUpdates);
    std::map<std::string, EntryToWrite> entries;

    static std::string live_update_json(const std::string &n) {
        return R"({"apiVersion":"tilt.dev/v1alpha1","kind":"LiveUpdate","metadata":{"name":"lu)" + n +
               R"("},"spec":{"basePath":"/b)" + n + R"(","sources":[{"fileWatch":"fw"}],)" +
               R"("selector":{"dockerCompose":{"service":"svc)" + n +
               R"("}},"syncs":[{"localPath":".","containerPath":"/app"}]}})";
    }
    static std::string service_json(const std::string &n) {
        return R"({"apiVersion":"tilt.dev/v1alpha1","kind":"DockerComposeService","metadata":{"name":"svc)" + n +
               R"("},"status":{"containerID":"c)" + n + R"("}})";
    }
    static api::ObjectPtr object(const std::string &json) {
        return std::make_shared<const api::ApiObject>(api::decode_api_object(boost::json::parse(json)));
    }

    LargeState() {
        for (int i = 0; i < kLiveUpdates; ++i) {
            // Two digits: names sort as numbers, as the store keeps them.
            const std::string n = (i < 10 ? "0" : "") + std::to_string(i);
            objects.push_back(object(live_update_json(n)));
            services.push_back(object(service_json(n)));
            monitors[i].manifest = "m" + n;
            monitors[i].spec_raw = boost::json::object{{"basePath", "/b" + n}};
            monitors[i].last_docker_compose_service = services.back();
            monitors[i].sources["fw"].paths.record("/b" + n + "/f", common::MicroTime(i + 1));
            monitors[i].containers[{"c" + n, "", ""}] =
                ContainerTrack{common::MicroTime(i + 1), std::nullopt, common::MicroTime()};
            statuses[i].failed = api::LiveUpdateStateFailed{"Reason" + n, "", common::MicroTime(i + 1)};
            entries["lu" + n] = EntryToWrite{&monitors[i], &statuses[i]};
        }
        objects.insert(objects.end(), services.begin(), services.end());
    }
    std::string blob() const { return encode_snapshot(common::MicroTime(1), objects, entries); }
};

// The snapshot of a decoded state, for comparing states.
std::string encoded(const EngineState &state) {
    std::map<std::string, EntryToWrite> views;
    for (const auto &[name, entry] : state.live_updates)
        views[name] = EntryToWrite{entry.monitor ? &*entry.monitor : nullptr, entry.status ? &*entry.status : nullptr};
    return encode_snapshot(state.start_time, state.objects, views);
}

EngineState decoded_now(RestoredState restored) {
    for (const auto &[name, pending] : restored.pending) restored.state.live_updates[name] = decode_pending(pending);
    return std::move(restored.state);
}

// The checksum an index carries, made right again after an edit of the same length.
std::string rehashed(std::string blob) {
    const std::size_t hash_at = blob.find(R"("xxh3":")") + 8;
    const std::size_t bytes_at = blob.find(R"("bytes":)") + 8;
    const std::size_t body = blob.find(R"(]},"objects":[)") + 2;  // the index ends with its list
    const std::size_t bytes = std::stoul(blob.substr(bytes_at));
    char digits[17];
    std::snprintf(digits, sizeof digits, "%016llx",
                  static_cast<unsigned long long>(XXH3_64bits(blob.data() + body, bytes)));
    blob.replace(hash_at, 16, digits);
    return blob;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(snapshot_index)

BOOST_AUTO_TEST_CASE(a_large_snapshot_is_indexed_and_restores_the_same_state) {
    const LargeState large;
    const std::string blob = large.blob();
    BOOST_TEST(blob.find(std::string("\"") + kIndexKey + "\":") != std::string::npos);
    BOOST_TEST(blob == boost::json::serialize(boost::json::parse(blob)));  // still one JSON document

    RestoredState restored = decode_snapshot_for_restore(blob);
    BOOST_TEST(restored.state.live_updates.empty());
    BOOST_TEST_REQUIRE(restored.pending.size() == std::size_t{kLiveUpdates});
    BOOST_TEST(restored.state.objects.size() == 2 * std::size_t{kLiveUpdates});
    const api::ObjectPtr svc7 = restored.state.objects.at(kLiveUpdates + 7);
    const DecodedEntry lu7 = decode_pending(restored.pending.at("lu07"));
    BOOST_TEST_REQUIRE(lu7.monitor.has_value());
    BOOST_TEST((lu7.monitor->last_docker_compose_service == svc7));  // shared, as before the snapshot

    const EngineState lazily = decoded_now(std::move(restored));
    BOOST_TEST(encoded(lazily) == blob);
    BOOST_TEST(encoded(decode_snapshot(blob)) == blob);  // what a reader of the whole document finds
}

BOOST_AUTO_TEST_CASE(a_snapshot_whose_index_does_not_match_is_read_whole) {
    const LargeState large;
    const std::string blob = large.blob();

    // An older plugin's: no index.
    const std::size_t index_at = blob.find(std::string(",\"") + kIndexKey + "\":");
    const std::size_t body_at = blob.find(R"(]},"objects":[)") + 2;
    const std::string without = blob.substr(0, index_at) + blob.substr(body_at);
    RestoredState older = decode_snapshot_for_restore(without);
    BOOST_TEST(older.pending.empty());
    BOOST_TEST(encoded(older.state) == blob);

    // A hand edit of the same length: the checksum no longer matches, so the
    // offsets are not believed and the edit is read as it is.
    std::string edited = blob;
    const std::size_t manifest = edited.find(R"("manifest":"m12")");
    BOOST_TEST_REQUIRE(manifest != std::string::npos);
    edited.replace(manifest, 16, R"("manifest":"x12")");
    RestoredState read = decode_snapshot_for_restore(edited);
    BOOST_TEST(read.pending.empty());
    BOOST_TEST(read.state.live_updates.at("lu12").monitor->manifest == "x12");

    // Corrupt: the error names the entry, before restore returns.
    std::string corrupt = blob;
    corrupt.replace(corrupt.find(R"("hasChangesToSync":false)", manifest), 24, R"("hasChangesToSync":fals3)");
    BOOST_CHECK_THROW(decode_snapshot_for_restore(corrupt), common::DecodeError);
}

BOOST_AUTO_TEST_CASE(a_torn_snapshot_is_refused) {
    const std::string blob = LargeState().blob();
    for (std::size_t cut = 1; cut < blob.size(); cut += blob.size() / 17 + 1) {
        BOOST_TEST_CONTEXT("cut at " << cut) {
            BOOST_CHECK_THROW(decode_snapshot_for_restore(blob.substr(0, cut)), common::DecodeError);
        }
    }
    BOOST_CHECK_THROW(decode_snapshot_for_restore(blob.substr(0, blob.size() - 1)), common::DecodeError);
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(engine_restore)

BOOST_AUTO_TEST_CASE(each_live_update_is_decoded_when_first_needed) {
    const std::string blob = LargeState().blob();
    Engine engine(common::MicroTime(0));
    std::vector<std::string> problems;
    std::mutex problems_mutex;
    engine.on_restore_problem([&](const std::string &p) {
        std::lock_guard lock(problems_mutex);
        problems.push_back(p);
    });
    engine.restore(blob);
    // Whichever decodes each one (the engine's thread or this call), the state is the snapshot's.
    BOOST_TEST(engine.snapshot() == blob);
    Engine again(common::MicroTime(0));
    again.restore(blob);
    BOOST_TEST((again.container_repaired("lu03", "c03") == std::optional<bool>(false)));
    BOOST_TEST(again.snapshot() == blob);
    std::lock_guard lock(problems_mutex);
    BOOST_TEST(problems.empty());
}

BOOST_AUTO_TEST_CASE(an_entry_that_cannot_be_decoded_later_starts_afresh_and_is_reported) {
    std::string blob = LargeState().blob();
    const std::size_t lu21 = blob.find(R"("manifest":"m21")");
    blob.replace(blob.find(R"("hasChangesToSync":false)", lu21), 24, R"("hasChangesToSync":"no!")");
    blob = rehashed(blob);
    Engine engine(common::MicroTime(0));
    std::vector<std::string> problems;
    std::mutex problems_mutex;
    engine.on_restore_problem([&](const std::string &p) {
        std::lock_guard lock(problems_mutex);
        problems.push_back(p);
    });
    engine.restore(blob);  // the index is intact: the entry is decoded after
    BOOST_TEST((engine.container_repaired("lu21", "c21") == std::optional<bool>(false)));  // decoded by now
    const EngineState state = decode_snapshot(engine.snapshot());
    BOOST_TEST(!state.live_updates.at("lu21").monitor.has_value());
    BOOST_TEST(!state.live_updates.at("lu21").status.has_value());
    BOOST_TEST(state.live_updates.at("lu20").monitor->manifest == "m20");
    std::lock_guard lock(problems_mutex);
    BOOST_TEST_REQUIRE(problems.size() == 1u);
    BOOST_TEST(problems[0].find("LiveUpdate \"lu21\"") != std::string::npos);
    BOOST_TEST(problems[0].find("hasChangesToSync") != std::string::npos);
}

// The fuzzer's finding: an entry whose text gives a key twice was taken when
// decoded after restore, and its text passed into the next snapshot, which
// the whole-document parse then refused.
BOOST_AUTO_TEST_CASE(an_entry_that_gives_a_key_twice_starts_afresh_and_the_next_snapshot_restores) {
    std::string blob = LargeState().blob();
    const std::size_t lu21 = blob.find(R"("manifest":"m21")");
    const std::size_t flag = blob.find(R"("hasChangesToSync":false)", lu21);
    BOOST_TEST_REQUIRE(flag != std::string::npos);
    const std::string twice = R"("manifest":"m21-twice!!")";
    BOOST_TEST_REQUIRE(twice.size() == std::string_view(R"("hasChangesToSync":false)").size());
    blob.replace(flag, twice.size(), twice);
    blob = rehashed(blob);
    Engine engine(common::MicroTime(0));
    std::vector<std::string> problems;
    std::mutex problems_mutex;
    engine.on_restore_problem([&](const std::string &p) {
        std::lock_guard lock(problems_mutex);
        problems.push_back(p);
    });
    engine.restore(blob);
    const std::string own = engine.snapshot();
    BOOST_TEST(own.find("m21-twice!!") == std::string::npos);
    Engine again(common::MicroTime(0));
    again.restore(own);
    const EngineState state = decode_snapshot(own);
    BOOST_TEST(!state.live_updates.at("lu21").monitor.has_value());
    BOOST_TEST(state.live_updates.at("lu20").monitor->manifest == "m20");
    std::lock_guard lock(problems_mutex);
    BOOST_TEST_REQUIRE(problems.size() == 1u);
    BOOST_TEST(problems[0].find("LiveUpdate \"lu21\"") != std::string::npos);
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(engine_snapshot)

// A snapshot copies each LiveUpdate's entry as its last session or repair
// left it: what changed since is there, never an older text.
BOOST_AUTO_TEST_CASE(a_snapshot_says_what_the_last_session_and_repair_changed) {
    const test::TempDir dir;
    const common::MicroTime start = *common::MicroTime::parse("2026-01-01T00:00:00Z");
    const auto at = [&](int second) { return common::MicroTime(start.micros() + second * 1'000'000LL); };
    const auto event = [&](int second, const std::string &file) {
        return R"({"time":")" + at(second).format() + R"(","seenFiles":[")" + dir.write(file) + R"("]})";
    };
    Engine engine(start);
    const auto upsert = [&](const std::string &json) { BOOST_REQUIRE(engine.upsert(json).admission.accepted); };
    const auto container = [&] {
        const EngineState state = decode_snapshot(engine.snapshot());
        return state.live_updates.at("lu").monitor->containers.at({"c1", "", ""});
    };
    upsert(R"({"kind":"LiveUpdate","metadata":{"name":"lu","annotations":{"tilt.dev/resource":"web"}},)"
           R"("spec":{"basePath":")" +
           dir.path().string() +
           R"(","sources":[{"fileWatch":"fw"}],"selector":{"dockerCompose":{"service":"svc"}},)"
           R"("syncs":[{"localPath":".","containerPath":"/app"}]}})");
    upsert(R"({"kind":"DockerComposeService","metadata":{"name":"svc"},"status":{"containerID":"c1",)"
           R"("containerName":"web","containerState":{"status":"running"}}})");
    const std::string first = event(1, "a.txt");
    upsert(R"({"kind":"FileWatch","metadata":{"name":"fw"},"status":{"fileEvents":[)" + first + "]}}");
    {
        auto b = engine.begin("lu", at(2));
        BOOST_REQUIRE(b.step.update);
        b.session->resume_batch({updater::Outcome{}}, at(2));
    }
    BOOST_TEST(container().last_file_time_synced.micros() == at(1).micros());
    upsert(R"({"kind":"FileWatch","metadata":{"name":"fw"},"status":{"fileEvents":[)" + first + "," +
           event(3, "b.txt") + "]}}");
    {
        auto b = engine.begin("lu", at(4));
        BOOST_REQUIRE(b.step.update);
        b.session->abandon();  // fails that update: UpdateFailed
    }
    BOOST_TEST(container().failure.value_or(ContainerFailure{}).reason == "UpdateFailed");
    BOOST_TEST(engine.container_repaired("lu", "c1").value_or(false) == true);
    BOOST_TEST(!container().failure.has_value());
    {
        auto b = engine.begin("lu", at(5));
        BOOST_REQUIRE(b.step.update);
        b.session->resume_batch({updater::Outcome{}}, at(5));
    }
    BOOST_TEST(container().last_file_time_synced.micros() == at(3).micros());
}

BOOST_AUTO_TEST_SUITE_END()
