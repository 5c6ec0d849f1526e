// A LiveUpdate's sync-back conflicts merged into the engine's status for the cluster.
#include <boost/test/unit_test.hpp>

#include "host/cluster/sync_back_status.hpp"

using namespace liveupdate::host::cluster;
namespace json = boost::json;

namespace {

const json::object kEngineStatus =
    json::parse(R"({"containers": [{"containerName": "web", "lastFileTimeSynced": "2026-01-01T00:00:00Z"}]})")
        .as_object();

const json::array kConflicts = json::parse(R"([{"container": "web-1", "path": "/app/package-lock.json",
    "localPath": "/home/dev/src/package-lock.json", "kind": "BothModified", "message": "m"}])")
                                   .as_array();

}  // namespace

BOOST_AUTO_TEST_SUITE(sync_back_status)

BOOST_AUTO_TEST_CASE(conflicts_go_beside_the_engine_fields_with_their_count) {
    const json::object status = with_sync_back_conflicts(kEngineStatus, kConflicts);
    BOOST_TEST(status.at("containers") == kEngineStatus.at("containers"));
    BOOST_TEST(status.at("syncBackConflictCount").to_number<int>() == 1);
    const json::object &c = status.at("syncBackConflicts").as_array().at(0).as_object();
    BOOST_TEST(c.at("container").as_string() == "web-1");
    BOOST_TEST(c.at("path").as_string() == "/app/package-lock.json");
    BOOST_TEST(c.at("kind").as_string() == "BothModified");
    // The developer's folder stays on the developer's machine.
    BOOST_TEST(!c.contains("localPath"));
}

BOOST_AUTO_TEST_CASE(none_open_leaves_no_field_even_one_written_before) {
    const json::object before = with_sync_back_conflicts(kEngineStatus, kConflicts);
    const json::object after = with_sync_back_conflicts(before, json::array{});
    BOOST_TEST(after == kEngineStatus);
}

BOOST_AUTO_TEST_SUITE_END()
