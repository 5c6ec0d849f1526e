// Which containers may be updated (plugin/core/eligibility.hpp).
#include <boost/test/unit_test.hpp>

#include "plugin/core/eligibility.hpp"
#include "tests/support/temp_dir.hpp"

using namespace liveupdate;

namespace {

common::MicroTime at(int second) { return common::MicroTime(second * 1'000'000LL); }

SelectedContainer running(int started_second) {
    SelectedContainer sc{updater::ContainerRef{"c1", "web", "pod", "ns", ""}, "Running", {}};
    sc.state.running = api::ContainerStateRunning{at(started_second)};
    return sc;
}

ContainerTrack failed(const std::string &reason, int container_started_second) {
    ContainerTrack track;
    track.failure = ContainerFailure{reason, "boom", at(1), at(container_started_second)};
    return track;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(eligibility)

// C07, beyond Tilt: the failure was the last run's.
BOOST_AUTO_TEST_CASE(a_container_started_again_is_free_of_its_failure) {
    const Monitor monitor;
    const api::LiveUpdateSpec spec;
    BOOST_TEST(!failure_cleared(monitor, spec, failed("UpdateFailed", 5), running(5), at(0)).has_value());
    const auto line = failure_cleared(monitor, spec, failed("UpdateFailed", 5), running(6), at(0));
    BOOST_REQUIRE(line.has_value());
    BOOST_TEST(*line == "Container pod/web started again since its update failed: live updates resume");
    // An unknown start time (zero) never clears it.
    BOOST_TEST(!failure_cleared(monitor, spec, failed("UpdateFailed", 0), running(6), at(0)).has_value());
}

BOOST_AUTO_TEST_CASE(an_update_failure_is_not_cleared_by_a_plan_that_works) {
    const test::TempDir dir;
    const std::string base = dir.path().string();
    Monitor monitor;
    monitor.sources["fw"].paths.record(base + "/a", at(3));
    api::LiveUpdateSpec spec;
    spec.base_path = base;
    spec.syncs.push_back({base, "/app"});
    // UpdateStopped: every change plans now, so its cause is gone; UpdateFailed waits for a build or a restart.
    BOOST_TEST(failure_cleared(monitor, spec, failed("UpdateStopped", 0), running(6), at(0)).has_value());
    BOOST_TEST(!failure_cleared(monitor, spec, failed("UpdateFailed", 0), running(6), at(0)).has_value());
    // The sync folder gone: the plan still stops, and so does the failure.
    spec.syncs.front().local_path = base + "/gone";
    Monitor gone;
    gone.sources["fw"].paths.record(base + "/gone/a", at(3));
    BOOST_TEST(!failure_cleared(gone, spec, failed("UpdateStopped", 0), running(6), at(0)).has_value());
}

BOOST_AUTO_TEST_CASE(skipped_changes_are_said_once_per_batch) {
    Monitor monitor;
    monitor.sources["fw"].paths.record("/b/a", at(3));
    ContainerTrack track = failed("UpdateFailed", 0);
    BOOST_TEST(skipped_changes_line(monitor, track, running(1), at(0)).has_value());
    BOOST_TEST(!skipped_changes_line(monitor, track, running(1), at(0)).has_value());
    monitor.sources["fw"].paths.record("/b/c", at(4));
    BOOST_TEST(skipped_changes_line(monitor, track, running(1), at(0)).has_value());
}

// C03, C04.
BOOST_AUTO_TEST_CASE(a_container_waits_to_run_then_for_its_trigger) {
    SelectedContainer sc = running(1);
    BOOST_TEST(!waiting_of(sc, false).has_value());
    BOOST_TEST(waiting_of(sc, true).value_or(api::LiveUpdateContainerStateWaiting{}).reason == "Trigger");
    sc.state.running.reset();
    BOOST_TEST(waiting_of(sc, true).value_or(api::LiveUpdateContainerStateWaiting{}).reason == "ContainerWaiting");
}

// C05: a crash loop blocks an update, not a container with nothing to sync.
BOOST_AUTO_TEST_CASE(a_crash_loop_blocks_only_a_plan_with_work) {
    SelectedContainer sc = running(1);
    sc.state.waiting = api::ContainerStateWaiting{"CrashLoopBackOff"};
    PlanResult plan;
    BOOST_TEST(!update_blocked(plan, sc).has_value());
    plan.plan.synced = 1;
    BOOST_TEST(update_blocked(plan, sc).value_or(api::LiveUpdateStateFailed{}).reason == "CrashLoopBackOff");
    plan.failed = PlanFailure{"UpdateStopped", "stop"};
    BOOST_TEST(update_blocked(plan, sc).value_or(api::LiveUpdateStateFailed{}).reason == "UpdateStopped");
}

// C06.
BOOST_AUTO_TEST_CASE(a_container_or_pod_that_ended) {
    SelectedContainer sc = running(1);
    BOOST_TEST(!has_ended(sc));
    sc.pod_phase = "Succeeded";
    BOOST_TEST(has_ended(sc));
    sc = running(1);
    sc.state.terminated = api::ContainerStateTerminated{};
    BOOST_TEST(has_ended(sc));
}

BOOST_AUTO_TEST_SUITE_END()
