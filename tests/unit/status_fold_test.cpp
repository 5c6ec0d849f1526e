// How results fold into the status (plugin/core/status_fold.hpp).
#include <boost/test/unit_test.hpp>

#include "plugin/core/status_fold.hpp"

using namespace liveupdate;

namespace {

common::MicroTime at(int second) { return common::MicroTime(second * 1'000'000LL); }

SelectedContainer container(const std::string &id, const std::string &name, int started_second) {
    SelectedContainer sc{updater::ContainerRef{id, name, "pod", "ns", ""}, "Running", {}};
    sc.state.running = api::ContainerStateRunning{at(started_second)};
    return sc;
}

const UpdatedContainer kUpdated{updater::ContainerRef{"c1", "web", "pod", "ns", ""}, "pod/web", at(3), at(1)};

}  // namespace

BOOST_AUTO_TEST_SUITE(status_fold)

BOOST_AUTO_TEST_CASE(an_update_moves_the_mark_a_paused_container_keeps_it) {
    const auto ok = outcome_result(kUpdated, updater::Outcome{}, at(9));
    BOOST_REQUIRE(ok.one.containers.size() == 1u);
    BOOST_TEST(ok.files_applied);
    BOOST_TEST(ok.one.containers[0].last_file_time_synced.micros() == at(3).micros());
    BOOST_TEST(ok.line.value_or(LogLine{}).text == "  \u2192 Container pod/web updated!");

    updater::Outcome paused;
    paused.kind = updater::Outcome::Kind::container_not_running;
    const auto waiting = outcome_result(kUpdated, paused, at(9));
    BOOST_TEST(!waiting.files_applied);
    BOOST_REQUIRE(waiting.one.containers.size() == 1u);
    BOOST_TEST(waiting.one.containers[0].last_file_time_synced.micros() == at(1).micros());
}

// X02, X03: an exec failure is the container's; any other fails the LiveUpdate, naming the pod, without a line.
BOOST_AUTO_TEST_CASE(run_and_infrastructure_failures_fold_differently) {
    updater::Outcome run;
    run.kind = updater::Outcome::Kind::run_failure;
    run.message = "exit 1";
    const auto exec = outcome_result(kUpdated, run, at(9));
    BOOST_REQUIRE(exec.one.containers.size() == 1u);
    BOOST_TEST(exec.one.containers[0].last_exec_error == "exit 1");
    const auto infra = outcome_result(kUpdated, updater::Outcome::infra_failure("gone"), at(9));
    BOOST_TEST(infra.one.containers.empty());
    BOOST_TEST(infra.one.failed.value_or(api::LiveUpdateStateFailed{}).message == "Updating pod pod: gone");
    BOOST_TEST(!infra.line.has_value());
}

// C07: the start time recorded lets a restart clear the failure.
BOOST_AUTO_TEST_CASE(a_recorded_failure_keeps_the_start_time_of_its_container) {
    const std::vector<SelectedContainer> containers{container("c0", "side", 2), container("c1", "web", 4)};
    const auto failure = recorded_failure({"UpdateFailed", "boom", {}}, at(1), {"c1", "pod", "ns"}, containers);
    BOOST_TEST(failure.reason == "UpdateFailed");
    BOOST_TEST(failure.low_water_mark.micros() == at(1).micros());
    BOOST_TEST(failure.container_started_at.micros() == at(4).micros());
}

// C11: Tilt's message word for word when nobody else is held.
BOOST_AUTO_TEST_CASE(a_failure_holding_others_says_so) {
    const ContainerKey key{"c1", "pod", "ns"};
    const std::vector<SelectedContainer> alone{container("c1", "web", 1)};
    BOOST_TEST(holding_all_message("UpdateFailed", "boom", key, alone) == "boom");
    const std::vector<SelectedContainer> two{container("c1", "web", 1), container("c2", "side", 1)};
    const std::string held = holding_all_message("UpdateFailed", "boom", key, two);
    BOOST_TEST(held.rfind("boom (container pod/web failed; the 1 other container(s) are held", 0) == 0u);
    BOOST_TEST(holding_all_message("UpdateStopped", "stop", key, two) == "stop");
}

// X05: the LiveUpdate's failure, else the first hold's, else the first exec error.
BOOST_AUTO_TEST_CASE(the_completed_event_carries_the_first_error) {
    api::LiveUpdateStatus status;
    status.containers.resize(2);
    status.containers[1].last_exec_error = "exit 1";
    BOOST_TEST(completed_error(status, nullptr) == "exit 1");
    const std::string held = "held";
    BOOST_TEST(completed_error(status, &held) == "held");
    status.failed = api::LiveUpdateStateFailed{"UpdateFailed", "boom", {}};
    BOOST_TEST(completed_error(status, &held) == "boom");
}

BOOST_AUTO_TEST_SUITE_END()
