// `lu-host trigger` end to end: a real daemon, a LiveUpdate in manual mode
// (annotation tilt.dev/update-mode: manual), the real CLI.
#define BOOST_TEST_MODULE trigger_integration_tests
#include <boost/test/unit_test.hpp>

#include "tests/integration/up_daemon.hpp"

using namespace up_it;

namespace {

bool holds(const fs::path &p, const std::string &content) {
    std::error_code ec;
    return fs::exists(p, ec) && read_file(p) == content;
}

// The first container's waiting reason of LiveUpdate lu ("" when not waiting).
std::string waiting_reason(const UpDaemon &d) {
    const json::value status = d.status_of("liveupdates", "lu");
    if (!status.is_object()) return "";
    const json::value *containers = status.as_object().if_contains("containers");
    if (containers == nullptr || !containers->is_array() || containers->as_array().empty()) return "";
    const json::value *waiting = containers->as_array()[0].as_object().if_contains("waiting");
    if (waiting == nullptr || !waiting->is_object()) return "";
    return std::string(waiting->at("reason").as_string());
}

Objects manual_objects() {
    Objects o;
    o.live_update["metadata"].as_object()["annotations"].as_object()["tilt.dev/update-mode"] = "manual";
    add_witness(o);
    return o;
}

const std::vector<std::string> kOneWorker{"--debounce", "0", "--workers", "1"};

}  // namespace

BOOST_AUTO_TEST_CASE(a_manual_live_update_syncs_only_when_triggered) {
    UpDaemon d;
    BOOST_TEST_REQUIRE(d.start(manual_objects(), kOneWorker));
    write_file(d.src / "a.txt", "one");
    BOOST_TEST(wait_until([&] { return waiting_reason(d) == "Trigger"; }));
    // Held back: nothing triggered it, though lu was reconciled after the change.
    BOOST_TEST_REQUIRE(d.witness_barrier());
    BOOST_TEST(!holds(d.in_app("a.txt"), "one"));

    const CommandResult r =
        run_command(std::string(LU_HOST_BIN) + " trigger lu --control-socket " + d.socket.string() + " 2>&1");
    BOOST_TEST(r.exit_code == 0);
    BOOST_TEST(r.output.find("lu: triggered") != std::string::npos, r.output);
    BOOST_TEST(wait_until([&] { return holds(d.in_app("a.txt"), "one"); }));

    // Served, the manifest leaves the queue: the next change waits for the next trigger.
    BOOST_TEST(wait_until([&] {
        const json::value queue = d.get("configmaps");
        return queue.is_object() && !queue.at("items").as_array().empty() &&
               queue.at("items").as_array()[0].at("data").as_object().empty();
    }));
    BOOST_TEST(wait_until([&] { return waiting_reason(d) == "Trigger"; }));
    write_file(d.src / "a.txt", "two");
    BOOST_TEST_REQUIRE(d.witness_barrier());
    BOOST_TEST(holds(d.in_app("a.txt"), "one"));
    BOOST_TEST(run_command(std::string(LU_HOST_BIN) + " trigger lu --control-socket " + d.socket.string()).exit_code ==
               0);
    BOOST_TEST(wait_until([&] { return holds(d.in_app("a.txt"), "two"); }));
    BOOST_TEST(d.stop() == 0);
}

BOOST_AUTO_TEST_CASE(an_unknown_name_is_an_error_and_queues_nothing) {
    UpDaemon d;
    BOOST_TEST_REQUIRE(d.start(manual_objects()));
    const CommandResult r =
        run_command(std::string(LU_HOST_BIN) + " trigger lu nope --control-socket " + d.socket.string() + " 2>&1");
    BOOST_TEST(r.exit_code == 1);
    BOOST_TEST(r.output.find("LiveUpdate \"nope\" not found") != std::string::npos, r.output);
    const json::value queues = d.get("configmaps");
    BOOST_TEST_REQUIRE(queues.is_object());
    BOOST_TEST(queues.at("items").as_array().empty());
}

BOOST_AUTO_TEST_CASE(without_a_daemon_trigger_says_so) {
    const CommandResult r =
        run_command(std::string(LU_HOST_BIN) + " trigger lu --control-socket /tmp/lu-no-daemon-here.sock 2>&1");
    BOOST_TEST(r.exit_code == 1);
    BOOST_TEST(r.output.find("no lu-host up answers") != std::string::npos, r.output);
}

BOOST_AUTO_TEST_CASE(usage_errors_exit_2) {
    BOOST_TEST(run_command(std::string(LU_HOST_BIN) + " trigger 2>/dev/null").exit_code == 2);
    BOOST_TEST(run_command(std::string(LU_HOST_BIN) + " trigger --help").output.find("usage: lu-host trigger") !=
               std::string::npos);
}
