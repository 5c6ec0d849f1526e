// The engine end to end, without the ABI: objects in, steps out.
#include <boost/test/unit_test.hpp>

#include <atomic>
#include <string>
#include <thread>
#include <vector>

#include "plugin/core/engine.hpp"
#include "plugin/core/snapshot.hpp"
#include "tests/support/temp_dir.hpp"

using namespace liveupdate;

namespace {

const common::MicroTime kStart = *common::MicroTime::parse("2026-01-01T00:00:00Z");
common::MicroTime at(int second) { return common::MicroTime(kStart.micros() + second * 1'000'000LL); }

struct Fixture {
    test::TempDir dir;
    Engine engine{kStart};

    void upsert(const std::string &json) {
        const auto r = engine.upsert(json);
        BOOST_REQUIRE_MESSAGE(r.admission.accepted, r.admission.message);
    }
    void compose(const std::string &id = "c1") {
        upsert(R"({"kind":"DockerComposeService","metadata":{"name":"svc"},"status":{"containerID":")" + id +
               R"(","containerName":"web","containerState":{"status":"running"}}})");
    }
    void live_update() {
        upsert(
            R"({"kind":"LiveUpdate","metadata":{"name":"lu","annotations":{"tilt.dev/resource":"web"}},"spec":{"basePath":")" +
            dir.path().string() +
            R"(","sources":[{"fileWatch":"fw"}],"selector":{"dockerCompose":{"service":"svc"}},"syncs":[{"localPath":".","containerPath":"/app"}]}})");
    }
    void events(const std::string &events_json) {
        upsert(R"({"kind":"FileWatch","metadata":{"name":"fw"},"status":{"fileEvents":)" + events_json + "}}");
    }
    std::string event(int second, const std::string &rel) {
        return R"({"time":")" + at(second).format() + R"(","seenFiles":[")" + dir.path().string() + "/" + rel +
               R"("]})";
    }
};

}  // namespace

BOOST_FIXTURE_TEST_SUITE(engine, Fixture)

BOOST_AUTO_TEST_CASE(change_to_a_referenced_object_makes_the_live_update_due) {
    live_update();
    compose();
    const auto r = engine.upsert(R"({"kind":"FileWatch","metadata":{"name":"fw"}})");
    BOOST_TEST(r.due == std::vector<std::string>{"lu"});
    BOOST_TEST(engine.upsert(R"({"kind":"FileWatch","metadata":{"name":"unrelated"}})").due.empty());
    BOOST_TEST(engine.remove("DockerComposeService", "svc") == std::vector<std::string>{"lu"});
}

BOOST_AUTO_TEST_CASE(update_then_nothing_new_changes_no_status) {
    dir.write("a.txt");
    live_update();
    compose();
    events("[" + event(1, "a.txt") + "]");
    auto begun = engine.begin("lu", at(2));
    BOOST_REQUIRE(begun.step.update);
    BOOST_TEST(begun.step.update->copy.size() == 1u);
    BOOST_TEST(begun.step.update->via == "docker");
    BOOST_TEST(begun.step.events.size() == 1u);
    const auto done = begun.session->resume_batch({updater::Outcome{}}, at(2));
    BOOST_REQUIRE(!done.update);
    BOOST_TEST(done.status_changed);
    BOOST_TEST(done.status->containers.at(0).last_file_time_synced.micros() == at(1).micros());
    begun.session.reset();

    auto again = engine.begin("lu", at(3));
    BOOST_TEST(!again.step.update);
    BOOST_TEST(!again.step.status_changed);
}

BOOST_AUTO_TEST_CASE(a_live_update_in_progress_is_refused_others_proceed) {
    dir.write("a.txt");
    live_update();
    compose();
    events("[" + event(1, "a.txt") + "]");
    auto first = engine.begin("lu", at(2));
    BOOST_CHECK_THROW(engine.begin("lu", at(2)), EngineBusy);
    BOOST_CHECK_THROW(engine.snapshot(), EngineBusy);
    auto other = engine.begin("absent", at(2));
    BOOST_TEST(!other.step.status);
}

BOOST_AUTO_TEST_CASE(abandoned_update_is_retried_as_failed_and_not_committed) {
    dir.write("a.txt");
    live_update();
    compose();
    events("[" + event(1, "a.txt") + "]");
    {
        auto first = engine.begin("lu", at(2));
        BOOST_REQUIRE(first.step.update);
        first.session->abandon();
    }
    auto next = engine.begin("lu", at(3));
    BOOST_REQUIRE(!next.step.update);
    BOOST_REQUIRE(next.step.status->failed);
    BOOST_TEST(next.step.status->failed->reason == "UpdateFailed");
    BOOST_TEST(next.step.status_changed);
}

// Issue 19: the host repaired the container (verify --fix): its failure clears
// and the next reconcile sends the skipped changes again.
BOOST_AUTO_TEST_CASE(a_repaired_container_clears_its_update_failure) {
    dir.write("a.txt");
    live_update();
    compose();
    events("[" + event(1, "a.txt") + "]");
    {
        auto first = engine.begin("lu", at(2));
        BOOST_REQUIRE(first.step.update);
        BOOST_CHECK_THROW(engine.container_repaired("lu", "c1"), EngineBusy);
        first.session->abandon();
    }
    {
        auto failed = engine.begin("lu", at(3));
        BOOST_REQUIRE(failed.step.status->failed);
    }
    BOOST_TEST(!engine.container_repaired("absent", "c1").has_value());
    BOOST_TEST(engine.container_repaired("lu", "other").value_or(true) == false);
    BOOST_TEST(engine.container_repaired("lu", "c1").value_or(false) == true);
    BOOST_TEST(engine.container_repaired("lu", "c1").value_or(true) == false);  // nothing left to clear
    auto next = engine.begin("lu", at(4));
    BOOST_REQUIRE(next.step.update.has_value());  // the skipped change, sent again
    next.session->resume_batch({updater::Outcome{}}, at(4));
}

BOOST_AUTO_TEST_CASE(deleting_drops_state_and_recreating_starts_fresh) {
    dir.write("a.txt");
    live_update();
    compose();
    events("[" + event(1, "a.txt") + "]");
    {
        auto b = engine.begin("lu", at(2));
        b.session->resume_batch({updater::Outcome{}}, at(2));
    }
    BOOST_TEST(engine.remove("LiveUpdate", "lu") == std::vector<std::string>{"lu"});
    {
        auto gone = engine.begin("lu", at(3));
        BOOST_TEST(!gone.step.status);
    }
    live_update();
    auto fresh = engine.begin("lu", at(4));
    BOOST_REQUIRE(fresh.step.update);  // the change is sent again: nothing was remembered
}

BOOST_AUTO_TEST_CASE(snapshot_restore_keeps_marks) {
    dir.write("a.txt");
    live_update();
    compose();
    events("[" + event(1, "a.txt") + "]");
    {
        auto b = engine.begin("lu", at(2));
        b.session->resume_batch({updater::Outcome{}}, at(2));
    }
    const std::string blob = engine.snapshot();
    Engine reloaded{at(50)};
    reloaded.restore(blob);
    auto b = reloaded.begin("lu", at(3));
    BOOST_TEST(!b.step.update);
    BOOST_TEST(!b.step.status_changed);
    BOOST_CHECK_THROW(reloaded.restore(R"({"format":"liveupdate.plugin.state","version":99})"), UnsupportedSnapshot);
}

// Issue 36: how the updater reached into the container and its process's
// last restart stay on the container's entry, through later updates that do
// not restart it and through a snapshot.
BOOST_AUTO_TEST_CASE(a_container_entry_keeps_its_agent_and_last_restart) {
    dir.write("a.txt");
    live_update();
    compose();
    events("[" + event(1, "a.txt") + "]");
    {
        auto b = engine.begin("lu", at(2));
        BOOST_REQUIRE(b.step.update);
        updater::Outcome restarted;
        restarted.agent = updater::AgentSource::injected;
        restarted.process_restarted = true;
        const auto done = b.session->resume_batch({restarted}, at(3));
        BOOST_TEST(done.status->containers.at(0).agent == "injected");
        BOOST_TEST(done.status->containers.at(0).last_restart_time.micros() == at(3).micros());
    }
    dir.write("b.txt");
    events("[" + event(1, "a.txt") + "," + event(4, "b.txt") + "]");
    {
        auto b = engine.begin("lu", at(5));
        BOOST_REQUIRE(b.step.update);
        updater::Outcome copied;
        copied.agent = updater::AgentSource::copied;
        const auto done = b.session->resume_batch({copied}, at(5));
        BOOST_TEST(done.status->containers.at(0).agent == "copied");
        BOOST_TEST(done.status->containers.at(0).last_restart_time.micros() == at(3).micros());
    }
    const std::string blob = engine.snapshot();
    Engine reloaded{at(50)};
    reloaded.restore(blob);
    dir.write("c.txt");
    reloaded.upsert(R"({"kind":"FileWatch","metadata":{"name":"fw"},"status":{"fileEvents":[)" + event(1, "a.txt") +
                    "," + event(4, "b.txt") + "," + event(6, "c.txt") + "]}}");
    auto b = reloaded.begin("lu", at(7));
    BOOST_REQUIRE(b.step.update);
    const auto done = b.session->resume_batch({updater::Outcome{}}, at(7));  // an updater that says neither
    BOOST_TEST(done.status->containers.at(0).agent == "copied");
    BOOST_TEST(done.status->containers.at(0).last_restart_time.micros() == at(3).micros());
}

BOOST_AUTO_TEST_CASE(different_live_updates_reconcile_concurrently) {
    constexpr int kWorkers = 4;
    constexpr int kRounds = 150;
    for (int w = 0; w < kWorkers; ++w) {
        const std::string n = std::to_string(w);
        std::string service = R"({"kind":"DockerComposeService","metadata":{"name":"svc)";
        service += n;
        service += R"("},"status":{"containerID":"c)";
        service += n;
        service += R"(","containerName":"web","containerState":{"status":"running"}}})";
        upsert(service);
        std::string live_update = R"({"kind":"LiveUpdate","metadata":{"name":"lu)";
        live_update += n;
        live_update += R"("},"spec":{"basePath":")";
        live_update += dir.path().string();
        live_update += R"(","sources":[{"fileWatch":"fw)";
        live_update += n;
        live_update += R"("}],"selector":{"dockerCompose":{"service":"svc)";
        live_update += n;
        live_update += R"("}},"syncs":[{"localPath":".","containerPath":"/app"}]}})";
        upsert(live_update);
    }
    std::vector<int> synced(kWorkers, 0);
    std::atomic<int> snapshots{0};
    std::atomic<int> torn{0};
    std::vector<std::thread> threads;
    threads.reserve(kWorkers);
    for (int w = 0; w < kWorkers; ++w) {
        threads.emplace_back([&, w] {
            const std::string n = std::to_string(w);
            for (int i = 1; i <= kRounds; ++i) {
                std::string file_watch = R"({"kind":"FileWatch","metadata":{"name":"fw)";
                file_watch += n;
                file_watch += R"("},"status":{"fileEvents":[{"time":")";
                file_watch += at(i).format();
                file_watch += R"(","seenFiles":[")";
                file_watch += dir.path().string();
                file_watch += "/w";
                file_watch += n;
                file_watch += "-";
                file_watch += std::to_string(i);
                file_watch += R"("]}]}})";
                engine.upsert(file_watch);
                {
                    auto begun = engine.begin("lu" + n, at(i));
                    Step step = std::move(begun.step);
                    while (step.update) {
                        ++synced[w];
                        step = begun.session->resume_batch({updater::Outcome{}}, at(i));
                    }
                }  // this worker's session ends here
                // A snapshot taken meanwhile may be refused (another worker's
                // session), never torn: one taken restores, and says again what it said.
                try {
                    const std::string blob = engine.snapshot();
                    Engine copy{at(0)};
                    copy.restore(blob);
                    if (copy.snapshot() != blob) ++torn;
                    ++snapshots;
                } catch (const EngineBusy &) {
                } catch (const std::exception &) {
                    ++torn;
                }
            }
        });
    }
    for (auto &t : threads) t.join();
    BOOST_TEST(torn.load() == 0);
    BOOST_TEST(snapshots.load() > 0);  // else nothing was checked
    BOOST_TEST_MESSAGE("snapshots taken meanwhile: " << snapshots.load());
    for (int w = 0; w < kWorkers; ++w) {
        BOOST_TEST(synced[w] == kRounds);
        auto begun = engine.begin("lu" + std::to_string(w), at(kRounds + 1));
        BOOST_TEST(!begun.step.update);
    }
}

BOOST_AUTO_TEST_SUITE_END()
