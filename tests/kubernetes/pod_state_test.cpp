// updaters/kubernetes/pod_state: which pods say that an update's container
// no longer runs (then the update's failure is "container not running").
#define BOOST_TEST_MODULE pod_state
#include <boost/json.hpp>
#include <boost/test/unit_test.hpp>

#include <string>

#include "common/json_fields.hpp"
#include "updaters/kubernetes/pod_state.hpp"

using liveupdate::kubernetes::gone_reason_of;
namespace json = boost::json;

namespace {

const liveupdate::updater::ContainerRef kMain{"abc123", "main", "web-1", "dev", ""};

json::value pod(const std::string &state, const std::string &id = "containerd://abc123",
                const std::string &extra_meta = "", const std::string &phase = "Running") {
    return json::parse(R"({"metadata": {"name": "web-1")" + extra_meta + R"(}, "status": {"phase": ")" + phase +
                       R"(", "containerStatuses": [{"name": "side", "state": {"terminated": {}}},
                        {"name": "main", "containerID": ")" +
                       id + R"(", "state": {")" + state + R"(": {}}}]}})");
}

}  // namespace

BOOST_AUTO_TEST_CASE(a_running_container_with_its_id_is_there) {
    BOOST_TEST(gone_reason_of(pod("running"), kMain) == "");
    // Without an ID to compare (a caller that has none), running is enough.
    BOOST_TEST(gone_reason_of(pod("running", "containerd://other"), {"", "main", "web-1", "dev", ""}) == "");
}

BOOST_AUTO_TEST_CASE(a_stopped_restarted_or_deleted_container_is_gone) {
    BOOST_TEST(gone_reason_of(pod("terminated"), kMain) == "container main of pod dev/web-1 has terminated");
    BOOST_TEST(gone_reason_of(pod("waiting"), kMain) == "container main of pod dev/web-1 is not running (waiting)");
    BOOST_TEST(gone_reason_of(pod("running", "containerd://def456"), kMain) ==
               "container main of pod dev/web-1 was started again since (container ID def456)");
    BOOST_TEST(gone_reason_of(pod("running", "containerd://abc123", R"(, "deletionTimestamp": "x")"), kMain) ==
               "pod dev/web-1 is being deleted");
    BOOST_TEST(gone_reason_of(pod("terminated", "containerd://abc123", "", "Succeeded"), kMain) ==
               "pod dev/web-1 has ended (Succeeded)");
}

BOOST_AUTO_TEST_CASE(a_pod_that_says_nothing_of_the_container_leaves_the_failure_as_it_is) {
    BOOST_TEST(gone_reason_of(json::parse(R"({"metadata": {}, "status": {"phase": "Running"}})"), kMain) == "");
}

// The API server is less trusted than the developer: an answer of another
// shape is an error naming the field (the updater then keeps the update's own
// failure), never read as a running container by accident.
BOOST_AUTO_TEST_CASE(a_pod_of_another_shape_is_an_error_naming_the_field) {
    const auto error_of = [](const std::string &text) -> std::string {
        try {
            gone_reason_of(json::parse(text), kMain);
        } catch (const liveupdate::common::DecodeError &e) {
            return e.field();
        }
        return "no error";
    };
    BOOST_TEST(error_of(R"({"status": {"phase": 3}})") == "status.phase");
    BOOST_TEST(error_of(R"({"status": {"containerStatuses": {}}})") == "status.containerStatuses");
    BOOST_TEST(error_of(R"({"status": {"containerStatuses": ["main"]}})") == "status.containerStatuses[0]");
    BOOST_TEST(error_of(R"({"status": {"containerStatuses": [{"name": "main", "containerID": 7}]}})") == "containerID");
}
