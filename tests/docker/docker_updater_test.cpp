// The docker updater against the real engine started by scripts/dockerd.sh.
#define BOOST_TEST_MODULE docker_updater
#include <grp.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <boost/test/unit_test.hpp>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <thread>

#include "tests/docker/docker_test_support.hpp"
#include "tests/docker/tcp_unix_proxy.hpp"
#include "tests/support/temp_dir.hpp"

using namespace lu_test;
namespace fs = std::filesystem;

namespace {

const std::string kBusybox = "lu-busybox:latest";
const std::string kNoTar = "lu-notar:2";
const std::string kSleep = "sleep 100000";

std::string write_local(const fs::path &dir, const std::string &name, const std::string &content) {
    fs::create_directories((dir / name).parent_path());
    std::ofstream(dir / name) << content;
    return (dir / name).string();
}

// One container for the tests that neither restart, stop nor need a bare
// image; each of them works under its own folder. Creating containers is the
// slow part of these tests (vfs storage).
const TestContainer &shared() {
    static const TestContainer container(kBusybox, kSleep);
    return container;
}

using liveupdate::test::TempDir;

// This process's peak resident size (VmHWM), in KiB.
long peak_rss_kib() {
    std::ifstream status("/proc/self/status");
    for (std::string line; std::getline(status, line);)
        if (line.rfind("VmHWM:", 0) == 0) return std::stol(line.substr(6));
    return -1;
}

}  // namespace

BOOST_AUTO_TEST_CASE(copies_files_into_nested_new_directories_and_through_symlinked_parents) {
    const auto &c = shared();
    DockerUpdater updater;
    Update u;
    // Directory entries for every parent, as archive builders often write them:
    // var/run is a symlink to /run in the image and must stay one.
    u.archive = TarBuilder()
                    .dir("t1")
                    .file("t1/hello.txt", "hello\n")
                    .dir("t1/new")
                    .dir("t1/new/deep")
                    .dir("t1/new/deep/er")
                    .file("t1/new/deep/er/f.txt", "deep\n")
                    .dir("var")
                    .dir("var/run")
                    .file("var/run/app.pid", "42\n")
                    .dir("t1/empty")
                    .finish();
    u.copies = {
        {"/l/hello.txt", "/t1/hello.txt"}, {"/l/f.txt", "/t1/new/deep/er/f.txt"}, {"/l/app.pid", "/var/run/app.pid"}};
    const auto outcome = updater.update(c.id(), c.name(), u);
    BOOST_TEST_REQUIRE(outcome.kind == LU_OUTCOME_OK, outcome.message);
    BOOST_TEST(c.exec("cat /t1/hello.txt").output == "hello\n");
    BOOST_TEST(c.exec("cat /t1/new/deep/er/f.txt").output == "deep\n");
    BOOST_TEST(c.exec("cat /run/app.pid").output == "42\n");
    BOOST_TEST(c.exec("readlink /var/run").output == "../run\n");
    BOOST_TEST(c.exec("test -d /t1/empty && echo dir").output == "dir\n");
}

BOOST_AUTO_TEST_CASE(deletes_paths_before_copying) {
    const auto &c = shared();
    c.exec("mkdir -p /t2/old/sub && echo x > /t2/old/sub/f && echo y > /t2/gone.txt && echo v1 > /t2/keep.txt");
    DockerUpdater updater;
    Update u;
    u.deletes = {"/t2/old", "/t2/gone.txt", "/t2/keep.txt", "/t2/never-existed"};
    u.archive = TarBuilder().file("t2/keep.txt", "v2\n").finish();
    u.copies = {{"/l/keep.txt", "/t2/keep.txt"}};
    const auto outcome = updater.update(c.id(), c.name(), u);
    BOOST_TEST_REQUIRE(outcome.kind == LU_OUTCOME_OK, outcome.message);
    BOOST_TEST(c.exec("ls /t2").output == "keep.txt\n");
    BOOST_TEST(c.exec("cat /t2/keep.txt").output == "v2\n");
}

BOOST_AUTO_TEST_CASE(runs_commands_in_order_and_logs_them) {
    const auto &c = shared();
    DockerUpdater updater;
    Update u;
    u.runs = {{{"sh", "-c", "echo first >> /tmp/t3-order; echo out-line; echo err-line >&2"}, false},
              {{"sh", "-c", "echo second >> /tmp/t3-order"}, true}};
    const auto outcome = updater.update(c.id(), c.name(), u);
    BOOST_TEST_REQUIRE(outcome.kind == LU_OUTCOME_OK, outcome.message);
    BOOST_TEST(c.exec("cat /tmp/t3-order").output == "first\nsecond\n");
    BOOST_TEST(outcome.logged("[CMD 1/2] sh -c echo first >> /tmp/t3-order; echo out-line; echo err-line >&2"));
    BOOST_TEST(!outcome.logged("[CMD 2/2]"));  // echoOff
    BOOST_TEST(outcome.logged("out-line"));
    BOOST_TEST(outcome.logged("err-line"));
}

// Ten lines of 10 MiB: each reaches the log cut at the cap, and the plugin
// (in this process) does not hold them. First of the big tests: the peak
// resident size has not been raised by them yet.
BOOST_AUTO_TEST_CASE(a_huge_output_line_reaches_the_log_cut) {
    const auto &c = shared();
    DockerUpdater updater;
    Update u;
    u.runs = {{{"sh", "-c",
                "for i in 1 2 3 4 5 6 7 8 9 10; do head -c 10485760 /dev/zero | tr '\\0' x; echo; done; echo after"},
               false}};
    const long before = peak_rss_kib();
    BOOST_TEST_REQUIRE(before > 0);
    const auto outcome = updater.update(c.id(), c.name(), u);
    const long growth = peak_rss_kib() - before;
    BOOST_TEST_REQUIRE(outcome.kind == LU_OUTCOME_OK, outcome.message);
    BOOST_TEST(outcome.logged("after"));
    std::size_t cut = 0;
    std::size_t longest = 0;
    for (const auto &line : outcome.logs) {
        longest = std::max(longest, line.size());
        if (line.find("x ... [line cut at 16384 bytes]") != std::string::npos) ++cut;
    }
    BOOST_TEST(cut == 10u);
    BOOST_TEST(longest < std::size_t{64} * 1024);
    BOOST_TEST(growth < 48 * 1024, "peak resident size grew by " << growth << " KiB");
}

BOOST_AUTO_TEST_CASE(a_failing_run_stops_the_update_with_its_exit_code) {
    const auto &c = shared();
    DockerUpdater updater;
    Update u;
    u.archive = TarBuilder().file("t4/a.txt", "a\n").finish();
    u.copies = {{"/l/a.txt", "/t4/a.txt"}};
    u.runs = {{{"sh", "-c", "echo compiling; exit 3"}, false}, {{"touch", "/tmp/t4-second-ran"}, false}};
    u.restart = true;
    const auto before = c.started_at();
    const auto outcome = updater.update(c.id(), c.name(), u);
    BOOST_TEST(outcome.kind == LU_OUTCOME_RUN_FAILURE);
    BOOST_TEST(outcome.exit_code == 3);
    BOOST_TEST(outcome.message.find("command \"echo compiling; exit 3\" failed with exit code: 3") != std::string::npos,
               outcome.message);
    BOOST_TEST(outcome.logged("compiling"));
    BOOST_TEST(c.exec("cat /t4/a.txt").output == "a\n");  // files stay synced
    BOOST_TEST(c.exec("test -e /tmp/t4-second-ran; echo $?").output == "1\n");
    BOOST_TEST(c.started_at() == before);  // no restart after a failure
}

BOOST_AUTO_TEST_CASE(a_missing_command_is_a_run_failure_saying_so) {
    const auto &c = shared();
    DockerUpdater updater;
    Update u;
    u.runs = {{{"no-such-command", "x"}, false}};
    const auto outcome = updater.update(c.id(), c.name(), u);
    BOOST_TEST(outcome.kind == LU_OUTCOME_RUN_FAILURE);
    BOOST_TEST((outcome.exit_code == 126 || outcome.exit_code == 127));
    BOOST_TEST(outcome.message.find("not found in PATH or not executable") != std::string::npos, outcome.message);
}

BOOST_AUTO_TEST_CASE(restart_restarts_the_container_after_the_update) {
    TestContainer c(kBusybox, "sh -c 'cat /app/v.txt > /tmp/seen-at-start 2>/dev/null; exec sleep 100000'");
    DockerUpdater updater;
    const auto before = c.started_at();
    Update u;
    u.archive = TarBuilder().file("app/v.txt", "v2\n").finish();
    u.copies = {{"/l/v.txt", "/app/v.txt"}};
    u.restart = true;
    const auto outcome = updater.update(c.id(), c.name(), u);
    BOOST_TEST_REQUIRE(outcome.kind == LU_OUTCOME_OK, outcome.message);
    BOOST_TEST(c.started_at() != before);
    BOOST_TEST(c.exec("cat /tmp/seen-at-start").output == "v2\n");  // the new process saw the new file
}

BOOST_AUTO_TEST_CASE(hot_reload_keeps_the_process_running) {
    const auto &c = shared();
    DockerUpdater updater;
    const auto before = c.started_at();
    const auto pid_before = c.exec("cat /proc/1/stat | cut -d' ' -f22").output;
    Update u;
    u.archive = TarBuilder().file("t7/v.txt", "hot\n").finish();
    u.copies = {{"/l/v.txt", "/t7/v.txt"}};
    const auto outcome = updater.update(c.id(), c.name(), u);
    BOOST_TEST_REQUIRE(outcome.kind == LU_OUTCOME_OK, outcome.message);
    BOOST_TEST(c.exec("cat /t7/v.txt").output == "hot\n");
    BOOST_TEST(c.started_at() == before);
    BOOST_TEST(c.exec("cat /proc/1/stat | cut -d' ' -f22").output == pid_before);
}

// The exec path (no lu-agent, see test_docker_agent.cpp for the agent's).
BOOST_AUTO_TEST_CASE(an_image_without_tar_falls_back_to_the_archive_api_and_verifies) {
    TempDir local;
    TestContainer c(kNoTar, "/sleep 100000");
    BOOST_TEST_REQUIRE(c.exec("true").exit_code != 0);  // no shell: the image really is bare
    DockerUpdater updater(R"({"agent": false})");
    Update u;
    u.archive = TarBuilder()
                    .dir("app")
                    .file("app/a.txt", "from-archive-api\n")
                    .dir("app/n")
                    .file("app/n/b.txt", "bb\n")
                    .finish();
    u.copies = {{write_local(local.path(), "a.txt", "from-archive-api\n"), "/app/a.txt"},
                {write_local(local.path(), "b.txt", "bb\n"), "/app/n/b.txt"}};
    const auto outcome = updater.update(c.id(), c.name(), u);
    BOOST_TEST_REQUIRE(outcome.kind == LU_OUTCOME_OK, outcome.message);
    BOOST_TEST(outcome.logged("has no tar"));
    BOOST_TEST(sh_ok("docker cp " + c.name() + ":/app/a.txt - | tar -xO") == "from-archive-api");
    BOOST_TEST(sh_ok("docker cp " + c.name() + ":/app/n/b.txt - | tar -xO") == "bb");

    // What the archive does not carry is reported, not silently accepted.
    Update wrong;
    wrong.archive = TarBuilder().file("app/c.txt", "short\n").finish();
    wrong.copies = {{write_local(local.path(), "c.txt", "longer than the archive's copy\n"), "/app/c.txt"},
                    {write_local(local.path(), "d.txt", "d\n"), "/app/d.txt"}};
    const auto failed = updater.update(c.id(), c.name(), wrong);
    BOOST_TEST(failed.kind == LU_OUTCOME_INFRA_FAILURE);
    BOOST_TEST(failed.message.find("/app/d.txt (missing)") != std::string::npos, failed.message);
    BOOST_TEST(failed.message.find("/app/c.txt (size 6, expected 31)") != std::string::npos, failed.message);
}

// Without tar the copy goes through the archive API, which extracts as root:
// the files are given the configured user's owner, as tar running as that
// user would have left them.
BOOST_AUTO_TEST_CASE(an_image_without_tar_gets_files_owned_by_the_configured_user) {
    TempDir local;
    TestContainer c(kNoTar, "/sleep 100000");
    const auto owner_of = [&](const std::string &path) {
        return sh_ok("docker cp " + c.name() + ":" + path + " - | tar -tv --numeric-owner | awk '{print $2}'");
    };
    const std::vector<std::pair<std::string, std::string>> cases{
        {"", "0/0"}, {"app", "1500/1600"}, {"app:web", "1500/1700"}, {"1500", "1500/1600"}, {"4242:77", "4242/77"}};
    for (const auto &[user, expected] : cases) {
        DockerUpdater updater(user.empty() ? R"({"agent": false})" : R"({"agent": false, "user": ")" + user + R"("})");
        Update u;
        u.archive = TarBuilder().file("app/owned.txt", user + "\n").finish();
        u.copies = {{write_local(local.path(), "owned.txt", user + "\n"), "/app/owned.txt"}};
        const auto outcome = updater.update(c.id(), c.name(), u);
        BOOST_TEST_REQUIRE(outcome.kind == LU_OUTCOME_OK, user << ": " << outcome.message);
        BOOST_TEST(owner_of("/app/owned.txt") == expected, "user '" << user << "'");
    }

    DockerUpdater ghost(R"({"agent": false, "user": "ghost"})");
    Update u;
    u.archive = TarBuilder().file("app/owned.txt", "x\n").finish();
    u.copies = {{write_local(local.path(), "owned.txt", "x\n"), "/app/owned.txt"}};
    const auto outcome = ghost.update(c.id(), c.name(), u);
    BOOST_TEST(outcome.kind == LU_OUTCOME_INFRA_FAILURE);
    BOOST_TEST(outcome.message.find("\"user\" setting cannot be applied in " + c.name()) != std::string::npos,
               outcome.message);
    BOOST_TEST(outcome.message.find("user 'ghost' is not in the container's /etc/passwd") != std::string::npos,
               outcome.message);
}

BOOST_AUTO_TEST_CASE(an_image_without_rm_cannot_delete_and_says_why) {
    TestContainer c(kNoTar, "/sleep 100000");
    DockerUpdater updater(R"({"agent": false})");
    Update u;
    u.deletes = {"/app/x"};
    const auto outcome = updater.update(c.id(), c.name(), u);
    // UpdateFailed, as Tilt's exec of `rm` failing: the resource needs a rebuild.
    BOOST_TEST(outcome.kind == LU_OUTCOME_INFRA_FAILURE);
    BOOST_TEST(outcome.message.find("has no `rm`") != std::string::npos, outcome.message);
    // The way out, named: the Docker archive API cannot delete, lu-agent can.
    BOOST_TEST(outcome.message.find("the Docker archive API cannot delete") != std::string::npos, outcome.message);
    BOOST_TEST(outcome.message.find("\"agent\": true") != std::string::npos, outcome.message);

    // With lu-agent (copied in through the archive API), the same delete is done.
    DockerUpdater with_agent;
    Update make;
    make.archive = TarBuilder().file("app/x", "x\n").finish();
    make.copies = {{"/l/x", "/app/x"}};
    BOOST_TEST_REQUIRE(with_agent.update(c.id(), c.name(), make).kind == LU_OUTCOME_OK);
    const auto deleted = with_agent.update(c.id(), c.name(), u);
    BOOST_TEST(deleted.kind == LU_OUTCOME_OK, deleted.message);
    BOOST_TEST(sh("docker cp " + c.name() + ":/app/x - >/dev/null 2>&1").exit_code != 0);
}

// C07: its state, not the update's failure; as one stopped before the update.
BOOST_AUTO_TEST_CASE(a_container_stopped_in_the_middle_counts_as_not_running) {
    TestContainer c(kBusybox, kSleep);
    DockerUpdater updater;
    Update u;
    u.runs = {{{"sh", "-c", "touch /tmp/started; sleep 60"}, false}};
    std::thread killer([&] {
        while (c.exec("test -e /tmp/started").exit_code != 0)
            std::this_thread::sleep_for(std::chrono::milliseconds(50));
        sh("docker kill " + c.name() + " >/dev/null");
    });
    const auto outcome = updater.update(c.id(), c.name(), u);
    killer.join();
    BOOST_TEST(outcome.kind == LU_OUTCOME_CONTAINER_NOT_RUNNING);
    BOOST_TEST(outcome.message.find("stopped during the update") != std::string::npos, outcome.message);
}

BOOST_AUTO_TEST_CASE(a_stopped_or_removed_container_counts_as_not_running) {
    DockerUpdater updater;
    Update u;
    u.runs = {{{"true"}, false}};
    std::string id;
    {
        TestContainer c(kBusybox, kSleep);
        id = c.id();
        sh_ok("docker stop -t 0 " + c.name());
        const auto stopped = updater.update(c.id(), c.name(), u);
        BOOST_TEST(stopped.kind == LU_OUTCOME_CONTAINER_NOT_RUNNING);
        BOOST_TEST(stopped.message.find("is not running (status: exited") != std::string::npos, stopped.message);
    }
    const auto gone = updater.update(id, "old-name", u);
    BOOST_TEST(gone.kind == LU_OUTCOME_CONTAINER_NOT_RUNNING);
    BOOST_TEST(gone.message.find("no longer exists") != std::string::npos, gone.message);
}

BOOST_AUTO_TEST_CASE(a_daemon_that_is_not_running_is_an_infra_failure_without_a_hang) {
    TempDir dir;
    // A socket file nobody listens on (bound, never listening), and a path with no socket at all.
    const auto stale = (dir.path() / "stale.sock").string();
    const int fd = ::socket(AF_UNIX, SOCK_STREAM, 0);
    sockaddr_un addr{};
    addr.sun_family = AF_UNIX;
    std::strncpy(addr.sun_path, stale.c_str(), sizeof addr.sun_path - 1);
    BOOST_TEST_REQUIRE(::bind(fd, reinterpret_cast<sockaddr *>(&addr), sizeof addr) == 0);
    ::close(fd);
    for (const auto &host : {"unix://" + stale, "unix://" + (dir.path() / "absent.sock").string()}) {
        ::setenv("DOCKER_HOST", host.c_str(), 1);
        DockerUpdater updater;
        ::unsetenv("DOCKER_HOST");
        Update u;
        u.runs = {{{"true"}, false}};
        const auto outcome = updater.update("0123456789ab", "web", u);
        BOOST_TEST(outcome.kind == LU_OUTCOME_INFRA_FAILURE);
        BOOST_TEST(outcome.message.find("cannot connect to the Docker daemon at " + host) != std::string::npos,
                   outcome.message);
        BOOST_TEST(outcome.message.find("is dockerd running?") != std::string::npos, outcome.message);
    }
}

BOOST_AUTO_TEST_CASE(a_daemon_that_never_answers_times_out) {
    TempDir dir;
    // Listening, so the connection is accepted by the kernel, but never read.
    const auto silent = (dir.path() / "silent.sock").string();
    const int fd = ::socket(AF_UNIX, SOCK_STREAM, 0);
    sockaddr_un addr{};
    addr.sun_family = AF_UNIX;
    std::strncpy(addr.sun_path, silent.c_str(), sizeof addr.sun_path - 1);
    BOOST_TEST_REQUIRE(::bind(fd, reinterpret_cast<sockaddr *>(&addr), sizeof addr) == 0);
    BOOST_TEST_REQUIRE(::listen(fd, 8) == 0);
    DockerUpdater updater(R"({"host": "unix://)" + silent + R"(", "apiVersion": "1.41", "timeoutSeconds": 1})");
    Update u;
    u.runs = {{{"true"}, false}};
    const auto outcome = updater.update("0123456789ab", "web", u);
    ::close(fd);
    BOOST_TEST(outcome.kind == LU_OUTCOME_INFRA_FAILURE);
    BOOST_TEST(
        outcome.message.find("did not answer GET /v1.41/containers/0123456789ab/json within 1s") != std::string::npos,
        outcome.message);
}

BOOST_AUTO_TEST_CASE(a_socket_this_user_may_not_open_is_a_permission_failure) {
    // The engine's socket is root:docker 0660; a child that drops to `nobody` may not open it.
    const std::string id = shared().id();
    int pipe_fds[2];
    BOOST_TEST_REQUIRE(::pipe(pipe_fds) == 0);
    const pid_t child = ::fork();
    if (child == 0) {
        ::close(pipe_fds[0]);
        std::string message = "could not drop privileges";
        if (::setgroups(0, nullptr) == 0 && ::setgid(65534) == 0 && ::setuid(65534) == 0) {
            DockerUpdater updater(R"({"host": "unix:///var/run/docker.sock"})");
            Update u;
            u.runs = {{{"true"}, false}};
            const auto outcome = updater.update(id, "web", u);
            message = std::to_string(outcome.kind) + " " + outcome.message;
        }
        (void)!::write(pipe_fds[1], message.data(), message.size());
        ::_exit(0);
    }
    ::close(pipe_fds[1]);
    std::string got;
    char buffer[4096];
    for (ssize_t n; (n = ::read(pipe_fds[0], buffer, sizeof buffer)) > 0;)
        got.append(buffer, static_cast<std::size_t>(n));
    ::close(pipe_fds[0]);
    ::waitpid(child, nullptr, 0);
    BOOST_TEST(got.starts_with(std::to_string(LU_OUTCOME_INFRA_FAILURE) + " "), got);
    BOOST_TEST(got.find("permission denied connecting to the Docker daemon at unix:///var/run/docker.sock") !=
                   std::string::npos,
               got);
}

BOOST_AUTO_TEST_CASE(the_user_setting_applies_to_copies_and_runs) {
    const auto &c = shared();
    c.exec("mkdir -p /t5/owned && chown 65534:65534 /t5/owned");
    DockerUpdater as_nobody(R"({"user": "nobody"})");
    Update run;
    run.runs = {{{"sh", "-c", "id -u > /t5/owned/uid"}, false}};
    BOOST_TEST_REQUIRE(as_nobody.update(c.id(), c.name(), run).kind == LU_OUTCOME_OK);
    BOOST_TEST(c.exec("cat /t5/owned/uid").output == "65534\n");

    Update denied;
    denied.archive = TarBuilder().file("t5/root-only.txt", "x\n").finish();
    denied.copies = {{"/l/root-only.txt", "/t5/root-only.txt"}};
    const auto outcome = as_nobody.update(c.id(), c.name(), denied);
    BOOST_TEST(outcome.kind == LU_OUTCOME_INFRA_FAILURE);
    BOOST_TEST(outcome.message.find("refused the write") != std::string::npos, outcome.message);
    BOOST_TEST(outcome.message.find("user 'nobody'") != std::string::npos, outcome.message);
}

BOOST_AUTO_TEST_CASE(a_large_archive_streams_through) {
    const auto &c = shared();
    DockerUpdater updater;
    TarBuilder tar;
    Update u;
    const std::string big(8 * 1024 * 1024 + 123, 'x');
    tar.file("t6/big.bin", big);
    for (int i = 0; i < 300; ++i) {
        tar.file("t6/many/f" + std::to_string(i) + ".txt", std::to_string(i));
        u.copies.push_back({"/l", "/t6/many/f" + std::to_string(i) + ".txt"});
    }
    u.archive = tar.finish();
    const auto outcome = updater.update(c.id(), c.name(), u);
    BOOST_TEST_REQUIRE(outcome.kind == LU_OUTCOME_OK, outcome.message);
    BOOST_TEST(c.exec("wc -c < /t6/big.bin").output == std::to_string(big.size()) + "\n");
    BOOST_TEST(c.exec("ls /t6/many | wc -l").output == "300\n");
    BOOST_TEST(c.exec("cat /t6/many/f299.txt").output == "299");
}

BOOST_AUTO_TEST_CASE(a_tcp_docker_host_works_for_copies_and_runs) {
    const auto &c = shared();
    TcpUnixProxy proxy("/var/run/docker.sock");
    const std::string host = "tcp://127.0.0.1:" + std::to_string(proxy.port());
    DockerUpdater updater(R"({"host": ")" + host + R"("})");
    Update u;
    u.archive = TarBuilder().file("t8/over-tcp.txt", "tcp\n").finish();
    u.copies = {{"/l/over-tcp.txt", "/t8/over-tcp.txt"}};
    u.runs = {{{"sh", "-c", "cat /t8/over-tcp.txt"}, false}};
    const auto outcome = updater.update(c.id(), c.name(), u);
    BOOST_TEST_REQUIRE(outcome.kind == LU_OUTCOME_OK, outcome.message);
    BOOST_TEST(outcome.logged("tcp"));
    BOOST_TEST(c.exec("cat /t8/over-tcp.txt").output == "tcp\n");
    BOOST_TEST(proxy.connections() > 0);  // it really went through TCP
}

BOOST_AUTO_TEST_CASE(an_unusable_docker_host_in_the_environment_fails_updates_not_creation) {
    ::setenv("DOCKER_HOST", "ssh://me@box", 1);
    DockerUpdater updater;
    ::unsetenv("DOCKER_HOST");
    Update u;
    u.runs = {{{"true"}, false}};
    const auto outcome = updater.update("0123456789ab", "web", u);
    BOOST_TEST(outcome.kind == LU_OUTCOME_INFRA_FAILURE);
    BOOST_TEST(outcome.message.find("DOCKER_HOST: docker host 'ssh://me@box': scheme 'ssh' is not supported") !=
                   std::string::npos,
               outcome.message);
}

BOOST_AUTO_TEST_CASE(a_run_longer_than_its_limit_is_an_infra_failure) {
    const auto &c = shared();
    DockerUpdater updater(R"({"runTimeoutSeconds": 1})");
    Update u;
    u.runs = {{{"sleep", "30"}, false}};
    const auto outcome = updater.update(c.id(), c.name(), u);
    BOOST_TEST(outcome.kind == LU_OUTCOME_INFRA_FAILURE);
    BOOST_TEST(outcome.message.find("timed out waiting for the command to finish") != std::string::npos,
               outcome.message);
    BOOST_TEST(outcome.message.find("the limit is 1s") != std::string::npos, outcome.message);
    c.exec("pkill -f 'sleep 30' 2>/dev/null; true");  // the exec itself goes on in the container
}

BOOST_AUTO_TEST_CASE(one_instance_serves_concurrent_updates_of_different_containers) {
    const auto &first = shared();
    TestContainer second(kBusybox, kSleep);
    DockerUpdater updater;
    std::vector<Outcome> outcomes(std::size_t{2} * 4);
    const auto work = [&](const TestContainer &c, int worker) {
        for (int i = 0; i < 4; ++i) {
            Update u;
            const std::string path = "t9/" + std::to_string(worker) + "/" + std::to_string(i) + ".txt";
            u.archive = TarBuilder().file(path, std::to_string(i)).finish();
            u.copies = {{"/l", "/" + path}};
            u.runs = {{{"cat", "/" + path}, false}};
            outcomes[(static_cast<std::size_t>(worker) * 4) + static_cast<std::size_t>(i)] =
                updater.update(c.id(), c.name(), u);
        }
    };
    std::thread a(work, std::cref(first), 0);
    std::thread b(work, std::cref(second), 1);
    a.join();
    b.join();
    for (const auto &o : outcomes) BOOST_TEST(o.kind == LU_OUTCOME_OK, o.message);
    BOOST_TEST(first.exec("cat /t9/0/3.txt").output == "3");
    BOOST_TEST(second.exec("cat /t9/1/3.txt").output == "3");
}

BOOST_AUTO_TEST_CASE(a_bad_config_is_refused_at_create) {
    BOOST_TEST(DockerUpdater::create_error(R"({"timeoutSeconds": "soon"})").find("timeoutSeconds") !=
               std::string::npos);
    BOOST_TEST(DockerUpdater::create_error(R"({"host": "ssh://box"})").find("not supported") != std::string::npos);
    BOOST_TEST(DockerUpdater::create_error(R"({"colour": 1})").find("unknown field 'colour'") != std::string::npos);
    BOOST_TEST(DockerUpdater::create_error("{}").empty());
}

// Issue 19 (h14 item 4): paused after the updater's first check (inspect)
// and before its exec: the engine answers the exec 409. That is a container
// not running, as a pause seen at inspect, not a failed update.
BOOST_AUTO_TEST_CASE(a_pause_between_inspect_and_exec_is_a_container_not_running) {
    const TestContainer c(kBusybox, kSleep);
    std::atomic<bool> paused{false};
    TcpUnixProxy proxy("/var/run/docker.sock", [&](std::string_view bytes) {
        if (!paused && bytes.starts_with("POST ") && bytes.find("/exec ") != std::string_view::npos) {
            sh_ok("docker pause " + c.name());
            paused = true;
        }
    });
    DockerUpdater updater(R"({"agent": false, "host": "tcp://127.0.0.1:)" + std::to_string(proxy.port()) + R"("})");
    Update u;
    u.archive = TarBuilder().file("app/p.txt", "p\n").finish();
    u.copies = {{"/l/p.txt", "/app/p.txt"}};
    const auto outcome = updater.update(c.id(), c.name(), u);
    BOOST_TEST(paused.load());
    BOOST_TEST(outcome.kind == LU_OUTCOME_CONTAINER_NOT_RUNNING, outcome.message);
    BOOST_TEST(outcome.message.find("paused") != std::string::npos, outcome.message);
    sh_ok("docker unpause " + c.name());
    const auto again = updater.update(c.id(), c.name(), u);
    BOOST_TEST_REQUIRE(again.kind == LU_OUTCOME_OK, again.message);
    BOOST_TEST(c.exec("cat /app/p.txt").output == "p\n");
}
