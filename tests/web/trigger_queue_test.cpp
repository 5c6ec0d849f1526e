// The trigger queue's ConfigMap and when a queued manifest has been served.
#include <boost/test/unit_test.hpp>

#include "host/up/trigger_queue.hpp"

using namespace liveupdate::host::up;
namespace json = boost::json;

BOOST_AUTO_TEST_SUITE(trigger_queue)

BOOST_AUTO_TEST_CASE(queueing_appends_once_and_keeps_the_rest) {
    const json::object first = queue_with(std::nullopt, "web");
    BOOST_TEST(first.at("kind").as_string() == "ConfigMap");
    BOOST_TEST(first.at("metadata").at("name").as_string() == kTriggerQueueName);
    BOOST_TEST(first.at("data") == json::parse(R"({"0-name": "web"})"));
    const json::object second = queue_with(first, "api");
    BOOST_TEST(queued_manifests(second) == (std::vector<std::string>{"web", "api"}));
    BOOST_TEST(queue_with(second, "web").at("data") == second.at("data"));
    BOOST_TEST(queued_manifests(queue_without(second, {"web"})) == (std::vector<std::string>{"api"}));
    BOOST_TEST(queue_without(second, {"web", "api"}).at("data").as_object().empty());
}

BOOST_AUTO_TEST_CASE(entries_are_read_in_index_order_ignoring_other_keys) {
    const json::object queue =
        json::parse(R"({"data": {"10-name": "c", "2-name": "b", "2-reason": "x", "0-name": "a"}})").as_object();
    BOOST_TEST(queued_manifests(queue) == (std::vector<std::string>{"a", "b", "c"}));
}

BOOST_AUTO_TEST_CASE(a_manifest_is_served_once_each_of_its_live_updates_reconciled_after_it) {
    TriggerTracker t;
    const std::uint64_t before = t.generation();
    t.queued("web", {"a", "b"});
    // A reconcile that began before the queue reached the plugin does not count.
    BOOST_TEST(t.reconciled("a", before).empty());
    BOOST_TEST(t.reconciled("a", t.generation()).empty());
    BOOST_TEST(t.reconciled("b", t.generation()) == (std::vector<std::string>{"web"}));
    BOOST_TEST(t.reconciled("b", t.generation()).empty());
}

BOOST_AUTO_TEST_CASE(a_deleted_live_update_is_not_waited_for) {
    TriggerTracker t;
    t.queued("web", {"a"});
    BOOST_TEST(t.forget("a") == (std::vector<std::string>{"web"}));
}

BOOST_AUTO_TEST_SUITE_END()
