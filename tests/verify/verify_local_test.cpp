// `lu-host verify` end to end on a local container (a folder stands for the
// container): a real daemon, the real local updater and its digest, the real CLI.
#define BOOST_TEST_MODULE verify_local_tests
#include <boost/test/unit_test.hpp>

#include "tests/integration/up_daemon.hpp"

using namespace up_it;

namespace {

bool holds(const fs::path &p, const std::string &content) {
    std::error_code ec;
    return fs::exists(p, ec) && read_file(p) == content;
}

CommandResult verify(const UpDaemon &d, const std::string &args) {
    return run_command(std::string(LU_HOST_BIN) + " verify " + args + " --control-socket " + d.socket.string() + " 2>&1");
}

bool contains(const std::string &text, const std::string &needle) { return text.find(needle) != std::string::npos; }

// A daemon whose LiveUpdate "lu" has synced src/a.txt and src/sub/b.txt into root/app.
void start_synced(UpDaemon &d, std::vector<std::string> extra_args = {"--debounce", "0"}) {
    BOOST_TEST_REQUIRE(d.start(Objects{}, std::move(extra_args)));
    write_file(d.src / "a.txt", "alpha");
    write_file(d.src / "sub/b.txt", "beta");
    write_file(d.src / "skip.ignored", "never synced");
    BOOST_TEST_REQUIRE(wait_until([&] { return holds(d.in_app("a.txt"), "alpha") && holds(d.in_app("sub/b.txt"), "beta"); }));
}

}  // namespace

BOOST_AUTO_TEST_CASE(an_equal_tree_verifies_clean) {
    UpDaemon d;
    start_synced(d);
    // Ignored on both sides: not missing here, not extra there.
    write_file(d.in_app("there.ignored"), "container's own");
    const CommandResult r = verify(d, "");
    BOOST_TEST(r.exit_code == 0, r.output);
    BOOST_TEST(contains(r.output, "lu box: in sync"), r.output);
}

BOOST_AUTO_TEST_CASE(verify_finds_changed_deleted_and_extra_files_and_fix_repairs_them) {
    UpDaemon d;
    start_synced(d);
    write_file(d.in_app("a.txt"), "changed in the container");
    fs::remove(d.in_app("sub/b.txt"));
    write_file(d.in_app("extra/c.txt"), "only in the container");

    CommandResult r = verify(d, "liveupdate lu");
    BOOST_TEST(r.exit_code == 1, r.output);
    BOOST_TEST(contains(r.output, "missing   /app/sub/b.txt"), r.output);
    BOOST_TEST(contains(r.output, "extra     /app/extra\n"), r.output);
    BOOST_TEST(contains(r.output, "different /app/a.txt"), r.output);
    // Verify alone changes nothing.
    BOOST_TEST(holds(d.in_app("a.txt"), "changed in the container"));

    r = verify(d, "liveupdate lu --fix -o json");
    BOOST_TEST(r.exit_code == 0, r.output);
    const json::value report = json_or_text(r.output);
    BOOST_TEST_REQUIRE(report.is_object(), r.output);
    const json::value &c = report.at("liveUpdates").at(0).at("containers").at(0);
    BOOST_TEST(c.at("repaired") == json::value(true));
    BOOST_TEST(c.at("remaining").at("different").as_array().empty());
    BOOST_TEST(holds(d.in_app("a.txt"), "alpha"));
    BOOST_TEST(holds(d.in_app("sub/b.txt"), "beta"));
    BOOST_TEST(!fs::exists(d.in_app("extra")));
    BOOST_TEST(!fs::exists(d.in_app("skip.ignored")));

    r = verify(d, "liveupdate lu");
    BOOST_TEST(r.exit_code == 0, r.output);
    // The repair is in the LiveUpdate's log.
    BOOST_TEST(contains(d.cli("describe liveupdate lu"), "verify (lu-host verify --fix): box: 1 missing, 1 extra, 1 different; repaired"));
}

BOOST_AUTO_TEST_CASE(usage_and_unknown_names_have_their_exit_codes) {
    UpDaemon d;
    start_synced(d);
    CommandResult r = verify(d, "liveupdate nope");
    BOOST_TEST(r.exit_code == 1, r.output);
    BOOST_TEST(contains(r.output, "not found"), r.output);
    BOOST_TEST(verify(d, "pods x").exit_code == 2);
    BOOST_TEST(verify(d, "--bogus").exit_code == 2);
    r = verify(d, "--help");
    BOOST_TEST(r.exit_code == 0);
    BOOST_TEST(contains(r.output, "--fix"));
}

BOOST_AUTO_TEST_CASE(the_daemon_repairs_on_its_own_every_interval) {
    UpDaemon d;
    start_synced(d, {"--debounce", "0", "--verify-every", "300ms"});
    write_file(d.in_app("a.txt"), "drifted");
    write_file(d.in_app("stray.txt"), "stray");
    BOOST_TEST(wait_until([&] { return holds(d.in_app("a.txt"), "alpha") && !fs::exists(d.in_app("stray.txt")); }));
    BOOST_TEST(wait_until([&] { return contains(d.log_text(), "verify (periodic check): box: 0 missing, 1 extra, 1 different; repaired"); }),
               d.log_text());
    BOOST_TEST(contains(d.log_text(), "- extra     /app/stray.txt"), d.log_text());
}

BOOST_AUTO_TEST_CASE(a_manual_live_update_is_left_to_its_trigger) {
    UpDaemon d;
    Objects o;
    o.live_update["metadata"].as_object()["annotations"].as_object()["tilt.dev/update-mode"] = "manual";
    add_witness(o);
    BOOST_TEST_REQUIRE(
        d.start(o, {"--debounce", "0", "--verify-every", "200ms", "--workers", "1", "--log-level", "debug"}));
    write_file(d.src / "held.txt", "held until a trigger");
    BOOST_TEST_REQUIRE(d.witness_barrier());  // reconciled since: not synced
    // Two periodic checks begun since: the first has ended. Each checks the witness alone.
    const auto checks = [&] {
        const std::string text = d.log_text();
        std::size_t n = 0;
        for (auto at = text.find("verify: checking "); at != std::string::npos;
             at = text.find("verify: checking ", at + 1))
            ++n;
        return n;
    };
    const std::size_t before = checks();
    BOOST_TEST_REQUIRE(wait_until([&] { return checks() >= before + 2; }), d.log_text());
    BOOST_TEST(!contains(d.log_text(), "verify: checking 2 LiveUpdate(s)"), d.log_text());
    BOOST_TEST(contains(d.log_text(), "verify: checking 1 LiveUpdate(s) (periodic check)"), d.log_text());
    BOOST_TEST(!fs::exists(d.in_app("held.txt")));
    // Asked for, verify tells (and would send) it.
    const CommandResult r = verify(d, "liveupdate lu");
    BOOST_TEST(r.exit_code == 1, r.output);
    BOOST_TEST(contains(r.output, "missing   /app/held.txt"), r.output);
}
