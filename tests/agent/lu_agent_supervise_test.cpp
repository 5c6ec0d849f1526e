// `lu-agent supervise`: the app's exit code, signals forwarded, orphans
// reaped, and a restart asked through an agent session (RestartProcess):
// the app's PID changes while the supervisor keeps running, and an app that
// ignores SIGTERM is killed after the grace.
#define BOOST_TEST_MODULE lu_agent_supervise
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <boost/test/unit_test.hpp>
#include <chrono>
#include <cstdlib>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "tests/agent/agent_process.hpp"
#include "tests/support/temp_dir.hpp"

using namespace lu_agent_test;
using liveupdate::test::TempDir;
using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

namespace {

// lu-agent supervise as a child process; its control socket in the scratch folder.
class Supervised {
public:
    Supervised(const TempDir &dir, const std::vector<std::string> &command) {
        ::setenv("LU_SUPERVISE_SOCKET", (dir / "supervise.sock").c_str(), 1);
        pid_ = ::fork();
        if (pid_ == 0) {
            std::vector<char *> argv{const_cast<char *>("lu-agent"), const_cast<char *>("supervise"),
                                     const_cast<char *>("--")};
            for (const auto &arg : command) argv.push_back(const_cast<char *>(arg.c_str()));
            argv.push_back(nullptr);
            ::execv(LU_AGENT_PATH, argv.data());
            ::_exit(127);
        }
    }
    Supervised(const Supervised &) = delete;
    Supervised &operator=(const Supervised &) = delete;
    // A stop as the runtime's: SIGTERM (forwarded to the app), SIGKILL when it is not enough.
    ~Supervised() {
        if (pid_ <= 0) return;
        ::kill(pid_, SIGTERM);
        if (exit_code(2s) == -1) kill_now();
    }
    // SIGKILL: the app stays, and so does the control socket.
    void kill_now() {
        ::kill(pid_, SIGKILL);
        ::waitpid(pid_, nullptr, 0);
        pid_ = -1;
    }
    pid_t pid() const { return pid_; }
    bool running() const { return ::waitpid(pid_, nullptr, WNOHANG) == 0; }
    // Its exit code, waiting up to `limit`; -1 when it still runs.
    int exit_code(std::chrono::milliseconds limit = 10s) {
        for (auto deadline = Clock::now() + limit; Clock::now() < deadline; std::this_thread::sleep_for(10ms)) {
            int status = 0;
            if (::waitpid(pid_, &status, WNOHANG) == pid_) {
                pid_ = -1;
                return WIFEXITED(status) ? WEXITSTATUS(status) : 1000 + WTERMSIG(status);
            }
        }
        return -1;
    }

private:
    pid_t pid_ = -1;
};

int supervised_exit(const std::vector<std::string> &command) {
    TempDir dir{"lu-agent-test"};
    Supervised supervised(dir, command);
    return supervised.exit_code();
}

// Waits up to 10 s for the file to hold `lines` lines; its lines then.
std::vector<std::string> lines_of(const std::string &path, std::size_t lines) {
    std::vector<std::string> got;
    for (auto deadline = Clock::now() + 10s; Clock::now() < deadline; std::this_thread::sleep_for(10ms)) {
        std::istringstream in(read_file(path));
        got.clear();
        for (std::string line; std::getline(in, line);) got.push_back(line);
        if (got.size() >= lines) break;
    }
    return got;
}

bool exists(const std::string &path) {
    struct stat st {};
    return ::lstat(path.c_str(), &st) == 0;
}

void wait_for(const std::string &path) {
    for (auto deadline = Clock::now() + 10s; Clock::now() < deadline && !exists(path);)
        std::this_thread::sleep_for(10ms);
    BOOST_REQUIRE(exists(path));
}

// A process's state letter (Z: a zombie nobody reaped), or 0 when it is gone.
char state_of(const std::string &pid) {
    const std::string stat = read_file("/proc/" + pid + "/stat");
    const auto paren = stat.rfind(')');
    return paren == std::string::npos || paren + 2 >= stat.size() ? 0 : stat[paren + 2];
}

}  // namespace

BOOST_AUTO_TEST_CASE(exits_with_the_apps_code) {
    BOOST_TEST(supervised_exit({"sh", "-c", "exit 7"}) == 7);
    BOOST_TEST(supervised_exit({"true"}) == 0);
    // Killed by a signal: 128 + the signal, as a shell says it.
    BOOST_TEST(supervised_exit({"sh", "-c", "kill -KILL $$"}) == 128 + SIGKILL);
    BOOST_TEST(supervised_exit({"lu-no-such-command-anywhere"}) == 127);
    BOOST_TEST(supervised_exit({}) == 2);
}

BOOST_AUTO_TEST_CASE(forwards_signals_to_the_app) {
    TempDir dir{"lu-agent-test"};
    const std::string log = dir / "log";
    Supervised supervised(dir,
                          {"sh", "-c",
                           "trap 'echo usr1 >> " + log + "' USR1; trap 'echo hup >> " + log +
                               "' HUP; trap 'exit 42' TERM; echo ready >> " + log + "; while :; do sleep 0.02; done"});
    BOOST_REQUIRE(lines_of(log, 1) == std::vector<std::string>{"ready"});
    ::kill(supervised.pid(), SIGUSR1);
    BOOST_REQUIRE(lines_of(log, 2).size() == 2);
    ::kill(supervised.pid(), SIGHUP);
    BOOST_TEST(lines_of(log, 3) == (std::vector<std::string>{"ready", "usr1", "hup"}));
    BOOST_TEST(supervised.running());
    ::kill(supervised.pid(), SIGTERM);
    BOOST_TEST(supervised.exit_code() == 42);
}

BOOST_AUTO_TEST_CASE(reaps_orphans_of_the_app) {
    TempDir dir{"lu-agent-test"};
    const std::string orphan = dir / "orphan";
    // The subshell exits at once: its sleep, orphaned, comes to the supervisor to be reaped when it ends.
    Supervised supervised(dir, {"sh", "-c",
                                "(sleep 0.2 & echo $! > " + orphan + ".tmp; mv " + orphan + ".tmp " + orphan +
                                    "); while :; do sleep 0.02; done"});
    wait_for(orphan);
    const std::string pid = lines_of(orphan, 1).at(0);
    char state = 'S';
    for (auto deadline = Clock::now() + 5s; Clock::now() < deadline && state != 0;) {
        std::this_thread::sleep_for(20ms);
        state = state_of(pid);
    }
    BOOST_TEST(state == 0, "the orphan " << pid << " is still there in state " << state);
    BOOST_TEST(supervised.running());
}

BOOST_AUTO_TEST_CASE(a_restart_through_the_agent_starts_the_app_again_under_a_new_pid) {
    TempDir dir{"lu-agent-test"};
    const std::string pids = dir / "pids";
    Supervised supervised(dir, {"sh", "-c", "echo $$ >> " + pids + "; exec sleep 1000"});
    BOOST_REQUIRE(lines_of(pids, 1).size() == 1);
    wait_for(dir / "supervise.sock");
    BOOST_TEST(mode_of(dir / "supervise.sock") == 0600);
    Agent agent;
    agent.greet();
    const auto result = agent.ask_for<Result>(encode(RestartProcess{5000}));
    BOOST_TEST(result.error == 0, result.message);
    const auto both = lines_of(pids, 2);
    BOOST_REQUIRE(both.size() == 2);
    BOOST_TEST(both[0] != both[1]);
    BOOST_TEST(result.message.find("pid " + both[0] + ", now pid " + both[1]) != std::string::npos, result.message);
    BOOST_TEST(state_of(both[0]) == 0);  // the old app is gone and reaped
    BOOST_TEST(supervised.running());
    BOOST_TEST(agent.finish() == 0);
    // The new app is the one a stop reaches.
    ::kill(supervised.pid(), SIGTERM);
    BOOST_TEST(supervised.exit_code() == 128 + SIGTERM);
    BOOST_TEST(!exists(dir / "supervise.sock"));
}

BOOST_AUTO_TEST_CASE(an_app_that_ignores_sigterm_is_killed_after_the_grace) {
    TempDir dir{"lu-agent-test"};
    const std::string pids = dir / "pids";
    Supervised supervised(dir, {"sh", "-c", "trap '' TERM; echo $$ >> " + pids + "; while :; do sleep 0.02; done"});
    BOOST_REQUIRE(lines_of(pids, 1).size() == 1);
    wait_for(dir / "supervise.sock");
    Agent agent;
    agent.greet();
    const auto asked = Clock::now();
    const auto result = agent.ask_for<Result>(encode(RestartProcess{300}));
    BOOST_TEST(result.error == 0, result.message);
    BOOST_TEST((Clock::now() - asked >= 300ms));  // it waited the grace before the SIGKILL
    const auto both = lines_of(pids, 2);
    BOOST_REQUIRE(both.size() == 2);
    BOOST_TEST(both[0] != both[1]);
    BOOST_TEST(state_of(both[0]) == 0);
    BOOST_TEST(supervised.running());
    ::kill(std::stoi(both[1]), SIGKILL);
}

BOOST_AUTO_TEST_CASE(without_a_supervisor_the_restart_says_so) {
    TempDir dir{"lu-agent-test"};
    ::setenv("LU_SUPERVISE_SOCKET", (dir / "supervise.sock").c_str(), 1);
    Agent agent;
    agent.greet();
    const auto result = agent.ask_for<Result>(encode(RestartProcess{100}));
    BOOST_TEST(result.error == kNoSupervisor);
    BOOST_TEST(result.message.find(dir / "supervise.sock") != std::string::npos, result.message);
}

BOOST_AUTO_TEST_CASE(a_socket_left_by_a_killed_supervisor_is_taken_over) {
    TempDir dir{"lu-agent-test"};
    {
        Supervised first(dir, {"sh", "-c", "echo $$ > " + (dir / "first").string() + "; exec sleep 1000"});
        wait_for(dir / "supervise.sock");
        const auto app = lines_of(dir / "first", 1);
        first.kill_now();
        BOOST_REQUIRE(app.size() == 1);
        ::kill(std::stoi(app[0]), SIGKILL);
    }
    BOOST_REQUIRE(exists(dir / "supervise.sock"));
    const std::string pids = dir / "pids";
    Supervised second(dir, {"sh", "-c", "echo $$ >> " + pids + "; exec sleep 1000"});
    BOOST_REQUIRE(lines_of(pids, 1).size() == 1);
    Agent agent;
    agent.greet();
    BOOST_TEST(agent.ask_for<Result>(encode(RestartProcess{2000})).error == 0);
    BOOST_TEST(lines_of(pids, 2).size() == 2);
}
