#include <boost/test/unit_test.hpp>

#include "host/cluster/operator_identity.hpp"

using namespace liveupdate::host::cluster;

namespace {

const char *kBoot = "6c1d2f3e-4a5b-4c6d-8e7f-0123456789ab";

OperatorProcess me() {
    OperatorProcess p;
    p.user = "ann";
    p.host = "box";
    p.pid = 200;
    p.start_ticks = 9000;
    p.boot_id = kBoot;
    p.pid_namespace = 4026531836;
    return p;
}

// The holder: ann's earlier daemon on this host, pid 100 started at tick 5000.
std::string holder() {
    OperatorProcess p = me();
    p.pid = 100;
    p.start_ticks = 5000;
    return format_operator_identity(p);
}

PidState absent(int) { return {PidState::Kind::absent, 0}; }
PidState started_at_5000(int) { return {PidState::Kind::running, 5000}; }
PidState started_at_7000(int) { return {PidState::Kind::running, 7000}; }
PidState unreadable(int) { return {PidState::Kind::unreadable, 0}; }

}  // namespace

BOOST_AUTO_TEST_SUITE(operator_identity)

BOOST_AUTO_TEST_CASE(an_identity_reads_back_as_written) {
    const auto parsed = parse_operator_identity(holder());
    BOOST_REQUIRE(parsed.has_value());
    BOOST_TEST(parsed->user == "ann");
    BOOST_TEST(parsed->host == "box");
    BOOST_TEST(parsed->pid == 100);
    BOOST_TEST(parsed->start_ticks == 5000u);
    BOOST_TEST(parsed->boot_id == kBoot);
    BOOST_TEST(parsed->pid_namespace == 4026531836u);
    BOOST_TEST(holder() == "ann@box pid 100 start 5000 boot " + std::string(kBoot) + " pidns 4026531836");
    BOOST_TEST(operator_name(*parsed) == "ann@box pid 100");
}

BOOST_AUTO_TEST_CASE(a_holder_whose_pid_runs_nothing_or_another_process_is_taken_over) {
    BOOST_TEST(may_take_over(holder(), me(), absent));
    BOOST_TEST(may_take_over(holder(), me(), started_at_7000));
}

BOOST_AUTO_TEST_CASE(a_live_or_unreadable_holder_keeps_its_lease) {
    BOOST_TEST(!may_take_over(holder(), me(), started_at_5000));
    BOOST_TEST(!may_take_over(holder(), me(), unreadable));
}

BOOST_AUTO_TEST_CASE(a_holder_of_another_host_boot_user_or_pid_namespace_is_never_looked_up) {
    bool asked = false;
    const auto ask = [&](int) {
        asked = true;
        return PidState{PidState::Kind::absent, 0};
    };
    for (int which = 0; which < 4; ++which) {
        OperatorProcess other = *parse_operator_identity(holder());
        if (which == 0) other.host = "elsewhere";
        if (which == 1) other.boot_id = "00000000-0000-4000-8000-000000000000";
        if (which == 2) other.user = "bob";
        if (which == 3) other.pid_namespace = 4026532000;
        BOOST_TEST(!may_take_over(format_operator_identity(other), me(), ask));
    }
    BOOST_TEST(!asked);
}

BOOST_AUTO_TEST_CASE(its_own_identity_is_never_taken_over) {
    BOOST_TEST(!may_take_over(format_operator_identity(me()), me(), absent));
}

BOOST_AUTO_TEST_CASE(malformed_or_hostile_identities_never_allow_a_take_over) {
    const std::string boot = kBoot;
    const std::string tail = " start 5000 boot " + boot + " pidns 4026531836";
    const std::vector<std::string> hostile = {
        "",
        "ann@box pid 100",  // an older operator's identity: no start time to tell a reused pid
        "ann@box pid 100 start 5000 boot " + boot,
        "ann@box pid 100" + tail + " extra",
        "ann@box  pid 100" + tail,
        "ann@box pid 100" + tail + " ",
        "annbox pid 100" + tail,
        "@box pid 100" + tail,
        "ann@ pid 100" + tail,
        "ann@b@x pid 100" + tail,
        "ann@box\t pid 100" + tail,
        "ann@box pid 0" + tail,
        "ann@box pid -1" + tail,
        "ann@box pid +100" + tail,
        "ann@box pid 0100" + tail,
        "ann@box pid 4194305" + tail,
        "ann@box pid 99999999999999999999999" + tail,
        "ann@box pid 1e2" + tail,
        "ann@box pid 100 start -5 boot " + boot + " pidns 4026531836",
        "ann@box pid 100 start 5000 boot " + boot + " pidns ",
        "ann@box pid 100 start 5000 boot ../../etc/passwd pidns 4026531836",
        "ann@box pid 100 start 5000 boot 6C1D2F3E-4A5B-4C6D-8E7F-0123456789AB pidns 4026531836",
        "ann@box pid 100 start 5000 boot 6c1d2f3e04a5b-4c6d-8e7f-0123456789ab pidns 4026531836",
        "ann@box PID 100" + tail,
        std::string("ann@box pid 100\0", 16) + tail,
        "ann@box pid 100" + tail.substr(0, tail.size() - 1) + "x",
    };
    for (const std::string &identity : hostile) {
        BOOST_TEST(!parse_operator_identity(identity).has_value(), identity);
        BOOST_TEST(!may_take_over(identity, me(), absent), identity);
    }
}

BOOST_AUTO_TEST_CASE(proc_stat_gives_the_start_time_past_a_hostile_command_name) {
    // Field 22 is the start time; the command name may hold ") " and spaces.
    const std::string fields = " 1 1 1 0 -1 4194560 100 0 0 0 1 2 0 0 20 0 1 0 5000 1000 10";
    const PidState s = parse_proc_stat("100 (lu-host) x) S) S" + fields);
    BOOST_TEST((s.kind == PidState::Kind::running));
    BOOST_TEST(s.start_ticks == 5000u);
    BOOST_TEST((parse_proc_stat("100 (lu-host) Z" + fields).kind == PidState::Kind::absent));
    BOOST_TEST((parse_proc_stat("100 (lu-host) S 1 1").kind == PidState::Kind::unreadable));
    BOOST_TEST((parse_proc_stat("garbage").kind == PidState::Kind::unreadable));
    BOOST_TEST((parse_proc_stat("").kind == PidState::Kind::unreadable));
}

BOOST_AUTO_TEST_SUITE_END()
