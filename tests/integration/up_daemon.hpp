// A real `lu-host up` in a temporary folder, for integration tests: the
// folder holds objects.json, src/ (watched) and root/ (the LocalContainer).
#pragma once

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <boost/json.hpp>
#include <boost/test/unit_test.hpp>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <mutex>
#include <sstream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "tests/support/wait_outcome.hpp"

extern char **environ;

namespace up_it {

namespace fs = std::filesystem;
namespace json = boost::json;

inline std::string read_file(const fs::path &p) {
    std::ifstream in(p);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

// Held while a test writes a file and while it spawns a child. A child
// spawned by another thread (popen of `lu-host get`) would otherwise hold a
// file being written open, between fork and exec, and drop it after the
// writer closed it and renamed it: an IN_CLOSE_WRITE that the daemon rightly
// reports as a second change.
inline std::mutex &writing_or_spawning() {
    static std::mutex lock;
    return lock;
}

struct CommandResult {
    std::string output;
    int exit_code = -1;  // -1: not run, or ended by a signal
};

// Runs a shell command, spawned under writing_or_spawning(): its standard output.
inline CommandResult run_command(const std::string &command) {
    FILE *p = nullptr;
    {
        std::lock_guard lock(writing_or_spawning());
        p = ::popen(command.c_str(), "r");
    }
    CommandResult result;
    if (p == nullptr) return result;
    char buf[4096];
    for (std::size_t n; (n = std::fread(buf, 1, sizeof buf, p)) > 0;) result.output.append(buf, n);
    const int status = ::pclose(p);
    if (WIFEXITED(status)) result.exit_code = WEXITSTATUS(status);
    return result;
}

// The text parsed as JSON, or the text itself when it is not JSON.
inline json::value json_or_text(const std::string &text) {
    boost::system::error_code ec;
    json::value v = json::parse(text, ec);
    return ec ? json::value(text) : v;
}

inline void write_file(const fs::path &p, const std::string &text) {
    fs::create_directories(p.parent_path());
    std::lock_guard lock(writing_or_spawning());
    const int fd = ::open(p.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) throw std::runtime_error("cannot write " + p.string());
    for (std::size_t done = 0; done < text.size();) {
        const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
        if (n < 0) {
            ::close(fd);
            throw std::runtime_error("cannot write " + p.string());
        }
        done += static_cast<std::size_t>(n);
    }
    ::close(fd);
}

// Polls until pred holds; a generous guard against hanging, not a timing check.
inline bool wait_until(const std::function<bool()> &pred, std::chrono::seconds limit = std::chrono::seconds(20)) {
    const auto end = std::chrono::steady_clock::now() + limit;
    while (std::chrono::steady_clock::now() < end) {
        if (pred()) return true;
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    return pred();
}

// Checks of a wait describe the state after it: BOOST_TEST(wait_outcome(wait_until(...), [&] { ... })).
using liveupdate::test::wait_outcome;

// Regular files beneath dir (relative path → content).
inline std::map<std::string, std::string> tree_of(const fs::path &dir) {
    std::map<std::string, std::string> out;
    std::error_code ec;
    if (!fs::exists(dir, ec)) return out;
    for (auto it = fs::recursive_directory_iterator(dir, ec); it != fs::recursive_directory_iterator();
         it.increment(ec))
        if (it->is_regular_file(ec)) out[it->path().lexically_relative(dir).string()] = read_file(it->path());
    return out;
}

// The default objects: FileWatch "fw" on src (ignoring *.ignored),
// LocalContainer "box" rooted at root/, LiveUpdate "lu" syncing src → /app.
struct Objects {
    json::object file_watch = json::parse(R"({"apiVersion": "tilt.dev/v1alpha1", "kind": "FileWatch",
        "metadata": {"name": "fw"},
        "spec": {"watchedPaths": ["src"], "ignores": [{"basePath": "src", "patterns": ["*.ignored"]}]}})")
                                  .as_object();
    json::object container = json::parse(R"({"apiVersion": "liveupdate.dev/v1alpha1", "kind": "LocalContainer",
        "metadata": {"name": "box"}, "spec": {"root": "root"}})")
                                 .as_object();
    json::object live_update = json::parse(R"({"apiVersion": "tilt.dev/v1alpha1", "kind": "LiveUpdate",
        "metadata": {"name": "lu", "annotations": {"tilt.dev/resource": "web"}},
        "spec": {"basePath": ".", "sources": [{"fileWatch": "fw"}], "selector": {"local": {"container": "box"}},
                 "syncs": [{"localPath": "src", "containerPath": "/app"}]}})")
                                   .as_object();
    std::vector<json::object> extra;

    json::object &lu_spec() { return live_update["spec"].as_object(); }
    std::string text() const {
        json::array items{file_watch, container, live_update};
        for (const auto &e : extra) items.push_back(e);
        return json::serialize(json::object{{"apiVersion", "v1"}, {"kind", "List"}, {"items", items}});
    }
};

// A second LiveUpdate, "witness": automatic, on the same FileWatch, syncing
// src into a container of its own (witness/app). Run the daemon with one
// worker (--workers 1), which serves LiveUpdates in the order they were
// marked due: then UpDaemon::witness_barrier() proves that every LiveUpdate
// has been reconciled with the changes made before it, so that what did not
// happen is known not to happen, without a sleep.
inline void add_witness(Objects &o) {
    o.extra.push_back(json::parse(R"({"apiVersion": "liveupdate.dev/v1alpha1", "kind": "LocalContainer",
        "metadata": {"name": "witness"}, "spec": {"root": "witness"}})")
                          .as_object());
    o.extra.push_back(json::parse(R"({"apiVersion": "tilt.dev/v1alpha1", "kind": "LiveUpdate",
        "metadata": {"name": "witness"},
        "spec": {"basePath": ".", "sources": [{"fileWatch": "fw"}], "selector": {"local": {"container": "witness"}},
                 "syncs": [{"localPath": "src", "containerPath": "/app"}]}})")
                          .as_object());
}

class UpDaemon {
public:
    fs::path dir;
    fs::path src, root, objects, log, socket;
    fs::path state;  // LIVEUPDATE_STATE_DIR: the synced journals, kept across restarts of this daemon
    // Runs the daemon through this command (e.g. setpriv dropping capabilities).
    std::vector<std::string> launcher;

    UpDaemon() {
        char tmpl[] = "/tmp/lu-up-it-XXXXXX";
        dir = ::mkdtemp(tmpl);
        src = dir / "src";
        root = dir / "root";
        objects = dir / "objects.json";
        log = dir / "daemon.log";
        socket = dir / "ctl/control.sock";
        state = dir / "state";
        fs::create_directories(src);
    }
    // A daemon still running is stopped, and a clean SIGTERM stop exits 0:
    // a crash at shutdown fails the test it ends.
    ~UpDaemon() {
        if (pid_ > 0) {
            const int status = stop();
            BOOST_TEST(status == 0, "lu-host up exited " << status << " when stopped; its log:\n" << read_file(log));
        }
        std::error_code ec;
        if (std::getenv("LU_KEEP_TEST_DIRS") == nullptr) fs::remove_all(dir, ec);
    }

    // Writes the objects and starts the daemon; true once it answers.
    bool start(const Objects &o, std::vector<std::string> extra_args = {"--debounce", "0"}) {
        write_file(objects, o.text());
        const std::size_t logged_before = read_file(log).size();  // a restart appends to the same log
        std::vector<std::string> args = launcher;
        args.insert(args.end(), {LU_HOST_BIN, "up", "--control-socket", socket.string()});
        args.insert(args.end(), extra_args.begin(), extra_args.end());
        args.push_back(objects.string());
        std::vector<char *> argv;
        argv.reserve(args.size() + 1);
        for (auto &a : args) argv.push_back(a.data());
        argv.push_back(nullptr);
        // The environment, with the journals kept in this test's folder.
        std::vector<std::string> env_text{"LIVEUPDATE_STATE_DIR=" + state.string()};
        for (char **e = environ; *e != nullptr; ++e)
            if (!std::string_view(*e).starts_with("LIVEUPDATE_STATE_DIR=")) env_text.emplace_back(*e);
        std::vector<char *> env;
        env.reserve(env_text.size() + 1);
        for (auto &e : env_text) env.push_back(e.data());
        env.push_back(nullptr);
        posix_spawn_file_actions_t actions;
        posix_spawn_file_actions_init(&actions);
        posix_spawn_file_actions_addopen(&actions, 1, log.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
        posix_spawn_file_actions_adddup2(&actions, 1, 2);
        int rc = 0;
        {
            std::lock_guard lock(writing_or_spawning());
            rc = ::posix_spawn(&pid_, argv[0], &actions, nullptr, argv.data(), env.data());
        }
        posix_spawn_file_actions_destroy(&actions);
        if (rc != 0) return false;
        return wait_until([&] { return read_file(log).find("up: watching", logged_before) != std::string::npos; });
    }

    // SIGSTOP / SIGCONT: while paused, the daemon reads no event.
    pid_t pid() const { return pid_; }
    void pause() const { ::kill(pid_, SIGSTOP); }
    void resume() const { ::kill(pid_, SIGCONT); }

    // SIGTERM and wait; the exit status (-1 when not running).
    int stop() {
        if (pid_ <= 0) return -1;
        ::kill(pid_, SIGTERM);
        int status = 0;
        ::waitpid(pid_, &status, 0);
        pid_ = -1;
        return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    }

    // SIGKILL and wait: no chance to finish anything.
    void kill_hard() {
        if (pid_ <= 0) return;
        ::kill(pid_, SIGKILL);
        int status = 0;
        ::waitpid(pid_, &status, 0);
        pid_ = -1;
    }

    // `lu-host ARGS` against this daemon through the real CLI: what it printed.
    std::string cli(const std::string &args) const {
        return run_command(std::string(LU_HOST_BIN) + " " + args + " --control-socket " + socket.string() + " 2>&1")
            .output;
    }
    // `lu-host get KIND -o json`.
    json::value get(const std::string &kind) const { return json_or_text(cli("get " + kind + " -o json")); }
    // `lu-host plugins -o json`.
    json::value plugins() const { return json_or_text(cli("plugins -o json")); }

    // The status of LiveUpdate (or other object) name, or null.
    json::value status_of(const std::string &kind, const std::string &name) const {
        const json::value list = get(kind);
        if (!list.is_object()) return nullptr;
        for (const auto &item : list.at("items").as_array())
            if (item.at("metadata").at("name") == json::value(name)) {
                const auto *s = item.as_object().if_contains("status");
                return s != nullptr ? *s : json::value(nullptr);
            }
        return nullptr;
    }

    // Saves src/rel whole, as an editor's atomic save does: staged outside
    // the watched folder and renamed in, one change. A write in place is two
    // (the truncation, then the bytes) that a loaded machine may report as
    // two updates, which a test counting updates or restarts must not meet.
    void save(const std::string &rel, const std::string &text) const {
        const fs::path staged = dir / "staging" / rel;
        write_file(staged, text);
        fs::create_directories((src / rel).parent_path());
        fs::rename(staged, src / rel);
    }

    std::string log_text() const { return read_file(log); }
    fs::path in_app(const std::string &rel) const { return root / "app" / rel; }

    // With add_witness and --workers 1: two markers, one after the other,
    // synced by the witness. A LiveUpdate due from a change made before the
    // call was served before the second marker's turn came.
    bool witness_barrier() {
        for (int i = 0; i < 2; ++i) {
            const std::string name = "witness-marker-" + std::to_string(++markers_) + ".txt";
            write_file(src / name, name);
            if (!wait_until([&] { return fs::exists(dir / "witness/app" / name); })) return false;
        }
        return true;
    }

private:
    pid_t pid_ = -1;
    int markers_ = 0;
};

}  // namespace up_it
