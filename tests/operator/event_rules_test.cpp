#include <boost/test/unit_test.hpp>

#include "host/cluster/event_ledger.hpp"
#include "host/cluster/event_rules.hpp"

using namespace liveupdate::host::cluster;
namespace json = boost::json;
using Clock = EventLedger::Clock;
using liveupdate::common::MicroTime;
using std::chrono::milliseconds;

namespace {

json::object exec_failed(const std::string &error) {
    return json::object{{"containers", json::array{json::object{{"containerName", "web"},
                                                                {"podName", "p"},
                                                                {"lastFileTimeSynced", "2026-01-01T00:00:01.000000Z"},
                                                                {"lastExecError", error}}}}};
}

json::object synced() {
    return json::object{{"containers", json::array{json::object{{"containerName", "web"}, {"podName", "p"}}}}};
}

std::vector<std::string> reasons(const std::vector<EventNote> &notes) {
    std::vector<std::string> out;
    for (const auto &n : notes) out.push_back(n.reason);
    return out;
}

const EventRegarding kWeb{"LiveUpdate", "web", "uid-1"};
const EventNote kFailed{true, "ExecError", "container web of pod p: exit 1", "Update"};

}  // namespace

BOOST_AUTO_TEST_SUITE(event_rules)

BOOST_AUTO_TEST_CASE(failures_are_read_from_the_status_as_it_says_them) {
    const auto failed =
        failures_in(json::object{{"failed", json::object{{"reason", "UpdateFailed"}, {"message", "m"}}}});
    BOOST_TEST_REQUIRE(failed.size() == 1u);
    BOOST_TEST(failed[0].warning);
    BOOST_TEST(failed[0].reason == "UpdateFailed");
    BOOST_TEST(failed[0].note == "m");
    const auto exec = failures_in(exec_failed("exit 1"));
    BOOST_TEST_REQUIRE(exec.size() == 1u);
    BOOST_TEST(exec[0].reason == "ExecError");
    BOOST_TEST(exec[0].note == "container web of pod p: exit 1");
    // Waiting for a container or a trigger is no failure; a held container is.
    const json::object waiting{
        {"containers",
         json::array{json::object{{"waiting", json::object{{"reason", "ContainerWaiting"}, {"message", "w"}}}},
                     json::object{{"waiting", json::object{{"reason", "Trigger"}, {"message", "t"}}}},
                     json::object{{"waiting", json::object{{"reason", "UpdateFailed"}, {"message", "held"}}}}}}};
    BOOST_TEST(reasons(failures_in(waiting)) == std::vector<std::string>{"UpdateFailed"});
}

BOOST_AUTO_TEST_CASE(a_failure_each_update_repeats_then_one_recovery) {
    LiveUpdateEvents events;
    BOOST_TEST(events.reconciled("web", {synced(), 1, {}}).empty());
    for (int i = 0; i < 3; ++i)
        BOOST_TEST(reasons(events.reconciled("web", {exec_failed("exit 1"), 1, {}})) ==
                   std::vector<std::string>{"ExecError"});
    // A reconcile without an update (a status only) does not repeat it.
    BOOST_TEST(events.reconciled("web", {exec_failed("exit 1"), 0, {}}).empty());
    const auto recovered = events.reconciled("web", {synced(), 1, {}});
    BOOST_TEST_REQUIRE(recovered.size() == 1u);
    BOOST_TEST(!recovered[0].warning);
    BOOST_TEST(recovered[0].reason == "Recovered");
    BOOST_TEST(recovered[0].note.find("ExecError") != std::string::npos);
    BOOST_TEST(events.reconciled("web", {synced(), 1, {}}).empty());
}

BOOST_AUTO_TEST_CASE(a_refusal_is_a_failure_until_served_and_a_restart_is_said) {
    LiveUpdateEvents events;
    const EventNote refused = events.refused("web", "basePath must be relative");
    BOOST_TEST(refused.warning);
    BOOST_TEST(refused.reason == "ObjectRefused");
    const auto served = events.reconciled("web", {synced(), 1, {"container web of pod p"}});
    BOOST_TEST(reasons(served) == (std::vector<std::string>{"Recovered", "Restarted"}));
    BOOST_TEST(served[1].note == "restarted container web of pod p after updating it");
    BOOST_TEST(!served[1].warning);
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(event_ledger)

BOOST_AUTO_TEST_CASE(repeats_are_one_event_whose_series_counts_them) {
    EventLedger ledger(EventLimits{.burst = 25, .refill = milliseconds(1000), .series_interval = milliseconds(1000)});
    const Clock::time_point t0 = Clock::now();
    ledger.observe(kWeb, kFailed, MicroTime(1'000'000));
    auto first = ledger.due(t0);
    BOOST_TEST_REQUIRE(first.size() == 1u);
    BOOST_TEST(first[0].name.empty());  // a create
    BOOST_TEST(first[0].count == 1u);
    const json::object created = event_object(first[0], "team", "lu-host", "me@host pid 1");
    BOOST_TEST(!created.contains("series"));
    BOOST_TEST(created.at("type").as_string() == "Warning");
    BOOST_TEST(created.at("regarding").at("uid").as_string() == "uid-1");
    BOOST_TEST(created.at("reportingController").as_string() == "lu-host");
    ledger.written(first[0], "web.abc.0");
    // 19 repeats within the series' interval: nothing is written until it passed, then one PATCH counts them all.
    for (int i = 2; i <= 20; ++i) ledger.observe(kWeb, kFailed, MicroTime(i * 1'000'000));
    BOOST_TEST(ledger.due(t0 + milliseconds(500)).empty());
    BOOST_TEST((ledger.next_due(t0 + milliseconds(500)) == t0 + milliseconds(1000)));
    auto repeat = ledger.due(t0 + milliseconds(1000));
    BOOST_TEST_REQUIRE(repeat.size() == 1u);
    BOOST_TEST(repeat[0].name == "web.abc.0");
    BOOST_TEST(repeat[0].count == 20u);
    const json::object patch = series_patch(repeat[0]);
    BOOST_TEST(patch.at("series").at("count").to_number<std::uint64_t>() == 20u);
    BOOST_TEST(patch.at("series").at("lastObservedTime").as_string() == MicroTime(20'000'000).format());
    BOOST_TEST(!ledger.next_due(t0 + milliseconds(1000)).has_value());
}

BOOST_AUTO_TEST_CASE(a_failing_loop_of_ever_new_notes_is_held_to_the_bucket) {
    EventLedger ledger(EventLimits{.burst = 5, .refill = milliseconds(1000), .series_interval = milliseconds(1000)});
    const Clock::time_point t0 = Clock::now();
    for (int i = 0; i < 100; ++i)
        ledger.observe(kWeb, EventNote{true, "ExecError", "attempt " + std::to_string(i), "Update"}, MicroTime(i + 1));
    BOOST_TEST(ledger.due(t0).size() == 5u);
    BOOST_TEST(ledger.due(t0 + milliseconds(10)).empty());
    BOOST_TEST((ledger.next_due(t0 + milliseconds(10)) >= t0 + milliseconds(1000)));
    BOOST_TEST(ledger.due(t0 + milliseconds(2000)).size() == 2u);  // one token a second
}

BOOST_AUTO_TEST_CASE(an_expired_event_is_made_again_with_every_occurrence) {
    EventLedger ledger;
    const Clock::time_point t0 = Clock::now();
    ledger.observe(kWeb, kFailed, MicroTime(1));
    auto first = ledger.due(t0);
    ledger.written(first.at(0), "web.1.0");
    ledger.observe(kWeb, kFailed, MicroTime(2));
    auto patch = ledger.due(t0 + milliseconds(1000));
    BOOST_TEST_REQUIRE(patch.size() == 1u);
    ledger.lost(patch[0]);
    auto again = ledger.due(t0 + milliseconds(2000));
    BOOST_TEST_REQUIRE(again.size() == 1u);
    BOOST_TEST(again[0].name.empty());
    BOOST_TEST(again[0].count == 2u);
    const json::object created = event_object(again[0], "team", "lu-host", "me");
    BOOST_TEST(created.at("series").at("count").to_number<std::uint64_t>() == 2u);
}

BOOST_AUTO_TEST_CASE(notes_are_clipped_to_what_the_api_server_takes) {
    EventWrite w{
        kWeb,        EventNote{true, std::string(200, 'r'), std::string(3000, 'n'), "Update"}, "", 0, 1, MicroTime(1),
        MicroTime(1)};
    const json::object e = event_object(w, "team", "lu-host", "me");
    BOOST_TEST(e.at("note").as_string().size() == 1024u);
    BOOST_TEST(e.at("reason").as_string().size() == 128u);
    BOOST_TEST(std::string(e.at("metadata").at("name").as_string()).starts_with("web."));
}

BOOST_AUTO_TEST_SUITE_END()
