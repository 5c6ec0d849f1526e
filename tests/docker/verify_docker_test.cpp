// `lu-host verify` on the real engine: a real `lu-host up` live-updates a
// labelled busybox container through the docker updater and lu-agent; verify
// finds what was changed, deleted or created inside the container, --fix
// repairs it, the daemon repairs on its own on a timer and after the agent's
// session was re-established, and a container where the agent cannot run
// says why. Containers are named i13v-verify-*.
#define BOOST_TEST_MODULE verify_docker
#include <signal.h>
#include <unistd.h>

#include <boost/test/unit_test.hpp>

#include <future>

#include "tests/docker/docker_test_support.hpp"
#include "tests/integration/up_daemon.hpp"

using namespace up_it;
using lu_test::sh;
using lu_test::sh_ok;

namespace {

bool contains(const std::string &text, const std::string &needle) { return text.find(needle) != std::string::npos; }

// A busybox container labelled as service "web" of its own Compose project.
class Service {
public:
    explicit Service(const std::string &extra = "") {
        static int counter = 0;
        project_ = "i13v-verify-" + std::to_string(::getpid()) + "-" + std::to_string(counter++);
        name_ = project_ + "-web-1";
        sh_ok("docker run -d --network none --name " + name_ + " --label com.docker.compose.project=" + project_ +
              " --label com.docker.compose.service=web --label com.docker.compose.oneoff=False"
              " --label com.docker.compose.container-number=1 " +
              extra + " lu-busybox:latest sleep 100000");
    }
    ~Service() { sh("docker rm -f " + name_ + " >/dev/null 2>&1"); }
    Service(const Service &) = delete;
    Service &operator=(const Service &) = delete;

    const std::string &project() const { return project_; }
    const std::string &name() const { return name_; }
    std::string exec(const std::string &command) const {
        return sh("docker exec " + name_ + " sh -c " + lu_test::shell_quote(command)).output;
    }
    std::string read(const std::string &path) const { return exec("cat " + path + " 2>/dev/null"); }
    bool exists(const std::string &path) const {
        return sh("docker exec " + name_ + " test -e " + path).exit_code == 0;
    }
    void kill_agents() const {
        const auto out = sh_ok("docker top " + name_ + " -eo pid,args | awk '/\\.lu-agent\\/lu-agent/ {print $1}'");
        for (std::size_t start = 0; start < out.size();) {
            const auto end = std::min(out.find('\n', start), out.size());
            if (end > start) ::kill(std::stoi(out.substr(start, end - start)), SIGKILL);
            start = end + 1;
        }
    }

private:
    std::string project_;
    std::string name_;
};

// The FileWatch on src, the service's DockerComposeService, a LiveUpdate syncing src → /app.
Objects objects_for(const Service &service) {
    Objects o;
    o.container = json::parse(R"({"apiVersion": "tilt.dev/v1alpha1", "kind": "DockerComposeService",
        "metadata": {"name": "web"}, "spec": {"service": "web", "project": {"name": ")" +
                              service.project() + R"(", "projectPath": "."}}})")
                      .as_object();
    o.lu_spec()["selector"] = json::parse(R"({"dockerCompose": {"service": "web"}})");
    return o;
}

CommandResult verify(const UpDaemon &d, const std::string &args) {
    return run_command(std::string(LU_HOST_BIN) + " verify " + args + " --control-socket " + d.socket.string() +
                       " 2>&1");
}

// verify, cut off after a minute (an unbounded digest would take hours).
CommandResult verify_within_a_minute(const UpDaemon &d) {
    return run_command("timeout 60 " + std::string(LU_HOST_BIN) + " verify liveupdate lu --control-socket " +
                       d.socket.string() + " 2>&1");
}

// How many lu-agent processes run in the container.
int agents_in(const Service &s) {
    return std::stoi(sh_ok("docker top " + s.name() + " -eo pid,args | grep -c '\\.lu-agent/lu-agent' || true"));
}

// A daemon that has synced src/a.txt and src/sub/b.txt into the service's /app.
void start_synced(UpDaemon &d, const Service &s, std::vector<std::string> extra_args = {"--debounce", "0"}) {
    const bool started = d.start(objects_for(s), std::move(extra_args));
    BOOST_TEST_REQUIRE(started);
    write_file(d.src / "a.txt", "alpha");
    write_file(d.src / "sub/b.txt", "beta");
    BOOST_TEST_REQUIRE(
        wait_outcome(wait_until([&] { return s.read("/app/a.txt") == "alpha" && s.read("/app/sub/b.txt") == "beta"; },
                                std::chrono::seconds(60)),
                     [&] { return d.log_text(); }));
}

}  // namespace

BOOST_AUTO_TEST_CASE(verify_finds_and_fix_repairs_what_changed_inside_the_container) {
    Service s;
    UpDaemon d;
    start_synced(d, s);
    CommandResult r = verify(d, "liveupdate lu");
    BOOST_TEST(r.exit_code == 0, r.output);
    BOOST_TEST(contains(r.output, "lu " + s.name() + ": in sync"), r.output);

    s.exec("echo changed > /app/a.txt; rm /app/sub/b.txt; echo extra > /app/extra.txt");
    r = verify(d, "liveupdate lu");
    BOOST_TEST(r.exit_code == 1, r.output);
    BOOST_TEST(contains(r.output, "different /app/a.txt"), r.output);
    BOOST_TEST(contains(r.output, "missing   /app/sub/b.txt"), r.output);
    // Written inside the container, never synced by liveupdate: told, left alone.
    BOOST_TEST(contains(r.output, "unsynced  /app/extra.txt"), r.output);
    BOOST_TEST(s.read("/app/a.txt") == "changed\n");

    r = verify(d, "liveupdate lu --fix");
    BOOST_TEST(r.exit_code == 0, r.output);
    BOOST_TEST(contains(r.output, "fixed, in sync now"), r.output);
    BOOST_TEST(s.read("/app/a.txt") == "alpha");
    BOOST_TEST(s.read("/app/sub/b.txt") == "beta");
    BOOST_TEST(s.read("/app/extra.txt") == "extra\n");
    BOOST_TEST(verify(d, "").exit_code == 0);

    r = verify(d, "liveupdate lu --fix --delete-extra");
    BOOST_TEST(r.exit_code == 0, r.output);
    BOOST_TEST(!s.exists("/app/extra.txt"));
}

BOOST_AUTO_TEST_CASE(the_daemon_repairs_a_change_inside_the_container_every_interval) {
    Service s;
    UpDaemon d;
    start_synced(d, s, {"--debounce", "0", "--verify-every", "500ms"});
    s.exec("echo drifted > /app/a.txt");
    BOOST_TEST(wait_outcome(wait_until([&] { return s.read("/app/a.txt") == "alpha"; }, std::chrono::seconds(30)),
                            [&] { return d.log_text(); }));
    BOOST_TEST(wait_outcome(wait_until([&] {
                                return contains(d.log_text(), "verify (periodic check): " + s.name() +
                                                                  ": 0 missing, 0 extra, 1 different; repaired");
                            }),
                            [&] { return d.log_text(); }));
}

BOOST_AUTO_TEST_CASE(a_new_agent_session_makes_the_daemon_verify_and_repair) {
    Service s;
    UpDaemon d;
    start_synced(d, s);  // no timer: only the reconnect can cause a check
    // The app's own files (issue 19): the repair must not delete them.
    s.exec(
        "echo db > /app/app.sqlite; mkdir -p /app/uploads; echo png > /app/uploads/p.png; echo log > /app/sub/app.log");
    s.kill_agents();
    s.exec("echo lost > /app/sub/b.txt");
    // The next update finds the session gone and starts a new one.
    write_file(d.src / "a.txt", "alpha 2");
    BOOST_TEST(wait_outcome(wait_until([&] { return s.read("/app/a.txt") == "alpha 2"; }, std::chrono::seconds(30)),
                            [&] { return d.log_text(); }));
    BOOST_TEST(wait_outcome(wait_until([&] { return s.read("/app/sub/b.txt") == "beta"; }, std::chrono::seconds(30)),
                            [&] { return d.log_text(); }));
    BOOST_TEST(contains(d.log_text(), "the docker updater reconnected to a container"), d.log_text());
    BOOST_TEST(s.read("/app/app.sqlite") == "db\n");
    BOOST_TEST(s.read("/app/uploads/p.png") == "png\n");
    BOOST_TEST(s.read("/app/sub/app.log") == "log\n");
}

// Issue 19: `docker restart` ends the agent's session; the check after the
// reconnect repairs the synced files and keeps what the app wrote.
BOOST_AUTO_TEST_CASE(after_a_docker_restart_an_edit_keeps_the_apps_files) {
    Service s;
    UpDaemon d;
    start_synced(d, s);
    s.exec("echo db > /app/app.sqlite; echo log > /app/sub/app.log; echo lost > /app/sub/b.txt");
    sh_ok("docker restart -t 0 " + s.name());
    write_file(d.src / "a.txt", "alpha 2");
    BOOST_TEST(wait_outcome(wait_until([&] { return s.read("/app/a.txt") == "alpha 2"; }, std::chrono::seconds(30)),
                            [&] { return d.log_text(); }));
    // b.txt back proves the check after the reconnect ran.
    BOOST_TEST(wait_outcome(wait_until([&] { return s.read("/app/sub/b.txt") == "beta"; }, std::chrono::seconds(30)),
                            [&] { return d.log_text(); }));
    BOOST_TEST(s.read("/app/app.sqlite") == "db\n");
    BOOST_TEST(s.read("/app/sub/app.log") == "log\n");
}

// Issue 19 item 4 on the real engine: a delete made while the daemon was
// killed reaches the container when it starts again.
BOOST_AUTO_TEST_CASE(a_file_deleted_while_the_daemon_was_killed_is_gone_after_a_restart) {
    Service s;
    UpDaemon d;
    start_synced(d, s);
    s.exec("echo log > /app/sub/app.log");
    d.kill_hard();
    fs::remove(d.src / "sub/b.txt");
    BOOST_TEST_REQUIRE(d.start(objects_for(s)));
    BOOST_TEST(wait_outcome(wait_until([&] { return !s.exists("/app/sub/b.txt"); }, std::chrono::seconds(30)),
                            [&] { return d.log_text(); }));
    BOOST_TEST(s.read("/app/sub/app.log") == "log\n");
    BOOST_TEST(s.read("/app/a.txt") == "alpha");
}

BOOST_AUTO_TEST_CASE(where_the_agent_cannot_run_verify_says_why) {
    Service s("--read-only --tmpfs /app");
    UpDaemon d;
    start_synced(d, s);  // through one exec per update
    const CommandResult r = verify(d, "liveupdate lu");
    BOOST_TEST(r.exit_code == 1, r.output);
    BOOST_TEST(contains(r.output, "verify needs lu-agent in the container: "), r.output);
}

// Issue 33 item 1: an app's 3 TB sparse file that liveupdate never synced is
// not read in the container: only its kind counts, and verify ends at once.
BOOST_AUTO_TEST_CASE(an_apps_sparse_file_in_the_container_is_not_read) {
    Service s;
    UpDaemon d;
    start_synced(d, s, {"--debounce", "0", "--no-verify-after-loss"});
    s.exec("truncate -s 3298534883328 /app/disk.img");
    const CommandResult r = verify_within_a_minute(d);
    BOOST_TEST(r.exit_code == 0, r.output);
    BOOST_TEST(contains(r.output, "unsynced  /app/disk.img"), r.output);
    if (r.exit_code != 0) d.kill_hard();  // a daemon waiting on that digest would not stop
}

// A sync target of `/` holds the container's /proc and /sys: neither is read
// (their pagemap files alone would take hours), each told as unsynced.
BOOST_AUTO_TEST_CASE(a_sync_target_of_the_root_does_not_read_procfs) {
    Service s;
    UpDaemon d;
    Objects o = objects_for(s);
    o.lu_spec()["syncs"] = json::parse(R"([{"localPath": "src", "containerPath": "/"}])");
    BOOST_TEST_REQUIRE(d.start(o, {"--debounce", "0", "--no-verify-after-loss"}));
    write_file(d.src / "a.txt", "alpha");
    BOOST_TEST_REQUIRE(wait_outcome(wait_until([&] { return s.read("/a.txt") == "alpha"; }, std::chrono::seconds(60)),
                                    [&] { return d.log_text(); }));
    const CommandResult r = verify_within_a_minute(d);
    BOOST_TEST(r.exit_code == 0, r.output);
    BOOST_TEST(contains(r.output, "unsynced  /proc"), r.output);
    BOOST_TEST(contains(r.output, "unsynced  /sys"), r.output);
    if (r.exit_code != 0) d.kill_hard();
}

// An agent whose session the host dropped in the middle of a digest (its
// answer later than the updater's 2 s timeout) stops: no retry leaves one
// running. The container's copy of a synced file grew to 3 TB (sparse):
// hashing it outlasts the session.
BOOST_AUTO_TEST_CASE(an_agent_whose_session_is_dropped_mid_digest_exits) {
    Service s;
    UpDaemon d;
    write_file(d.dir / "updaters.json",
               R"({"updaters": {"docker": {"plugin": "docker", "settings": {"timeoutSeconds": 2}}}})");
    start_synced(d, s, {"--debounce", "0", "--no-verify-after-loss", "--config", (d.dir / "updaters.json").string()});
    write_file(d.src / "big.img", "small here");
    BOOST_TEST_REQUIRE(
        wait_outcome(wait_until([&] { return s.read("/app/big.img") == "small here"; }), [&] { return d.log_text(); }));
    s.exec("truncate -s 3298534883328 /app/big.img");
    const CommandResult r = verify_within_a_minute(d);
    BOOST_TEST(r.exit_code == 1, r.output);
    BOOST_TEST(wait_outcome(wait_until([&] { return agents_in(s) == 0; }, std::chrono::seconds(15)), [&] {
        return std::to_string(agents_in(s)) +
               " lu-agent(s) still run: " + sh("docker top " + s.name() + " -eo pid,time,args").output;
    }));
}

// Issue 33: SIGTERM while lu-agent hashes one large file (a synced file whose
// container copy grew to 3 TB, sparse: its content counts) stops the daemon
// within moments: the host ends the session instead of waiting for the
// agent's answer at its budget (10 s), and the agent, its host gone, exits.
BOOST_AUTO_TEST_CASE(sigterm_stops_the_daemon_within_seconds_while_the_agent_hashes_a_large_file) {
    Service s;
    UpDaemon d;
    start_synced(d, s, {"--debounce", "0", "--no-verify-after-loss"});
    write_file(d.src / "big.img", "small here");
    BOOST_TEST_REQUIRE(
        wait_outcome(wait_until([&] { return s.read("/app/big.img") == "small here"; }), [&] { return d.log_text(); }));
    s.exec("truncate -s 3298534883328 /app/big.img");
    auto verifying = std::async(std::launch::async, [&] { return verify_within_a_minute(d); });
    std::this_thread::sleep_for(std::chrono::seconds(2));  // the local tree is digested; the agent reads big.img
    const pid_t pid = d.pid();
    const auto asked = std::chrono::steady_clock::now();
    auto stopping = std::async(std::launch::async, [&d] { return d.stop(); });
    const bool stopped = stopping.wait_for(std::chrono::seconds(4)) == std::future_status::ready;
    if (!stopped) ::kill(pid, SIGKILL);
    const int exit_code = stopping.get();
    BOOST_TEST(stopped, "not stopped 4 s after SIGTERM\n" << d.log_text());
    BOOST_TEST((!stopped || exit_code == 0), exit_code);
    BOOST_TEST_MESSAGE(
        "stopped in "
        << std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - asked).count()
        << " ms");
    verifying.get();
    BOOST_TEST(wait_outcome(wait_until([&] { return agents_in(s) == 0; }, std::chrono::seconds(15)), [&] {
        return std::to_string(agents_in(s)) +
               " lu-agent(s) still run: " + sh("docker top " + s.name() + " -eo pid,time,args").output;
    }));
}
