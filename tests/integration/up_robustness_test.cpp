// `lu-host up` against bad input and faults (issue 10): the control socket
// (what is at its path, slow and silent clients, big answers), object files
// that are not regular files or are written in pieces, duplicate
// declarations, endless container output, a killed daemon, and messages a
// user can act on. Real daemon, real files, real processes.
#define BOOST_TEST_MODULE up_robustness_tests
#include <boost/test/unit_test.hpp>

#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>

#include <atomic>
#include <future>

#include "tests/integration/up_daemon.hpp"

using namespace up_it;
using namespace std::chrono_literals;

namespace {

bool holds(const fs::path &p, const std::string &content) {
    std::error_code ec;
    return fs::exists(p, ec) && read_file(p) == content;
}

std::string quoted(const fs::path &p) { return "'" + p.string() + "'"; }

// `lu-host up` run in the foreground for at most `seconds` (timeout(1)): its output and exit code.
CommandResult up_for(const std::string &env, const std::string &args, int seconds) {
    return run_command(env + " timeout -s KILL " + std::to_string(seconds) + " " + LU_HOST_BIN + " up " + args +
                       " 2>&1");
}

// A connected raw client of the control socket.
int connect_raw(const fs::path &socket) {
    const int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_un addr{};
    addr.sun_family = AF_UNIX;
    std::snprintf(addr.sun_path, sizeof addr.sun_path, "%s", socket.c_str());
    if (::connect(fd, reinterpret_cast<const sockaddr *>(&addr), sizeof addr) != 0) {
        ::close(fd);
        return -1;
    }
    return fd;
}

// Stops the daemon on another thread; true when it has exited within the limit.
bool stops_within(UpDaemon &d, std::chrono::seconds limit) {
    auto stopped = std::async(std::launch::async, [&d] { return d.stop(); });
    return stopped.wait_for(limit) == std::future_status::ready && stopped.get() == 0;
}

std::size_t longest_line(const std::string &text) {
    std::size_t longest = 0, current = 0;
    for (const char c : text) {
        current = c == '\n' ? 0 : current + 1;
        longest = std::max(longest, current);
    }
    return longest;
}

}  // namespace

// Item 3: what is at --control-socket (or $LU_HOST_CONTROL_SOCKET) is never removed unless it is a dead socket.
BOOST_AUTO_TEST_CASE(a_control_socket_path_that_is_not_a_socket_is_refused) {
    UpDaemon d;
    write_file(d.objects, Objects{}.text());
    const fs::path precious = d.dir / "notes.txt";
    write_file(precious, "keep me");

    const CommandResult by_flag = up_for("", "--control-socket " + quoted(precious) + " " + quoted(d.objects), 10);
    BOOST_TEST(by_flag.exit_code == 1, by_flag.output);
    BOOST_TEST(by_flag.output.find("not a socket; refusing to replace it") != std::string::npos, by_flag.output);
    BOOST_TEST(holds(precious, "keep me"));

    const CommandResult by_env = up_for("LU_HOST_CONTROL_SOCKET=" + quoted(precious), quoted(d.objects), 10);
    BOOST_TEST(by_env.exit_code == 1, by_env.output);
    BOOST_TEST(holds(precious, "keep me"));

    // A socket nobody answers on (a daemon that died) is still taken over.
    fs::create_directories(d.socket.parent_path());
    const int stale = ::socket(AF_UNIX, SOCK_STREAM, 0);
    sockaddr_un addr{};
    addr.sun_family = AF_UNIX;
    std::snprintf(addr.sun_path, sizeof addr.sun_path, "%s", d.socket.c_str());
    BOOST_TEST_REQUIRE(::bind(stale, reinterpret_cast<const sockaddr *>(&addr), sizeof addr) == 0);
    ::close(stale);
    BOOST_TEST_REQUIRE(d.start(Objects{}), d.log_text());
    BOOST_TEST(d.get("liveupdates").is_object());
}

namespace {

// 1,000 LiveUpdates that wait for a container that never comes: an answer
// listing them is far beyond the request limit and the socket buffers.
Objects with_many_live_updates() {
    Objects o;
    for (int i = 0; i < 1000; ++i) {
        json::object lu = o.live_update;
        lu["metadata"].as_object()["name"] = "many-" + std::to_string(i);
        lu["spec"].as_object()["selector"] = json::parse(R"({"local": {"container": "absent"}})");
        o.extra.push_back(lu);
    }
    return o;
}

}  // namespace

// Item 9: answers of any realistic size.
BOOST_AUTO_TEST_CASE(an_answer_listing_a_thousand_live_updates_arrives) {
    UpDaemon d;
    BOOST_TEST_REQUIRE(d.start(with_many_live_updates()), d.log_text());
    const json::value list = d.get("liveupdates");
    BOOST_TEST_REQUIRE(list.is_object(), d.cli("get liveupdates -o json").substr(0, 300));
    BOOST_TEST(list.at("items").as_array().size() == 1001u);
    BOOST_TEST(d.cli("describe liveupdate many-999").find("Name:         many-999") == 0u);
}

// Item 8: a client that trickles its request and one that never reads its
// (big) answer block neither other clients nor the shutdown.
BOOST_AUTO_TEST_CASE(slow_clients_block_neither_others_nor_the_shutdown) {
    UpDaemon d;
    BOOST_TEST_REQUIRE(d.start(with_many_live_updates()), d.log_text());
    const int greedy = connect_raw(d.socket);
    BOOST_TEST_REQUIRE(greedy >= 0);
    const std::string request = R"({"op": "get", "kind": "LiveUpdate"})"
                                "\n";
    BOOST_TEST(::send(greedy, request.data(), request.size(), MSG_NOSIGNAL) == static_cast<ssize_t>(request.size()));
    const int slow = connect_raw(d.socket);
    BOOST_TEST_REQUIRE(slow >= 0);
    std::atomic<bool> trickling{true};
    std::thread trickler([&] {
        for (int i = 0; i < 100 && trickling; ++i) {
            ::send(slow, " ", 1, MSG_NOSIGNAL);
            std::this_thread::sleep_for(200ms);
        }
    });
    std::this_thread::sleep_for(300ms);
    const CommandResult answered = run_command("timeout -s KILL 8 " + std::string(LU_HOST_BIN) +
                                               " get filewatches -o json --control-socket " + quoted(d.socket));
    BOOST_TEST(answered.exit_code == 0);
    BOOST_TEST(json_or_text(answered.output).is_object(), answered.output);
    BOOST_TEST(stops_within(d, 10s), d.log_text());
    trickling = false;
    trickler.join();
    ::close(greedy);
    ::close(slow);
}

// Item 7: a FIFO and a symlink to /dev/zero among the object files are refused
// with their reason, without blocking start-up, reloading or the shutdown.
BOOST_AUTO_TEST_CASE(object_files_that_are_not_regular_files_are_refused) {
    UpDaemon d;
    const fs::path more = d.dir / "more";
    fs::create_directories(more);
    BOOST_TEST_REQUIRE(::mkfifo((more / "fifo.json").c_str(), 0600) == 0);
    fs::create_symlink("/dev/zero", more / "zero.json");
    BOOST_TEST_REQUIRE(d.start(Objects{}, {"--debounce", "0", more.string()}), d.log_text());
    const std::string log = d.log_text();
    BOOST_TEST(log.find((more / "fifo.json").string() + ": not read: a FIFO") != std::string::npos, log);
    BOOST_TEST(log.find((more / "zero.json").string() + ": not read: a character device") != std::string::npos, log);

    // Touching the FIFO does not stop the next object file from loading.
    BOOST_TEST_REQUIRE(::chmod((more / "fifo.json").c_str(), 0644) == 0);
    write_file(more / "cm.json", R"({"kind": "ConfigMap", "metadata": {"name": "cm"}, "data": {"k": "v"}})");
    BOOST_TEST(wait_until([&] { return d.get("configmaps").at("items").as_array().size() == 1u; }), d.log_text());
    BOOST_TEST(stops_within(d, 10s), d.log_text());
}

// Item 4: removing the declaration in use falls back to the one left in another file.
BOOST_AUTO_TEST_CASE(a_duplicate_declaration_takes_over_when_the_other_goes) {
    UpDaemon d;
    const fs::path more = d.dir / "more";
    write_file(more / "a.json", R"({"kind": "ConfigMap", "metadata": {"name": "cm"}, "data": {"from": "a"}})");
    write_file(more / "b.json", R"({"kind": "ConfigMap", "metadata": {"name": "cm"}, "data": {"from": "b"}})");
    BOOST_TEST_REQUIRE(d.start(Objects{}, {"--debounce", "0", more.string()}), d.log_text());
    const auto from = [&] {
        const json::value list = d.get("configmaps");
        if (!list.is_object() || list.at("items").as_array().size() != 1u) return std::string("(none)");
        return std::string(list.at("items").as_array()[0].at("data").at("from").as_string());
    };
    BOOST_TEST_REQUIRE(from() == "b");
    fs::remove(more / "b.json");
    BOOST_TEST(wait_until([&] { return from() == "a"; }), d.log_text());
    BOOST_TEST(d.log_text().find("using its declaration in " + (more / "a.json").string()) != std::string::npos);
    fs::remove(more / "a.json");
    BOOST_TEST(wait_until([&] { return from() == "(none)"; }), d.log_text());
}

// Item 10: output without newlines is cut into bounded lines as it comes
// (issue 19: a line over the cap keeps its start, marked, the rest dropped).
BOOST_AUTO_TEST_CASE(endless_container_output_is_split_into_bounded_lines) {
    UpDaemon d;
    Objects o;
    o.container["spec"].as_object()["command"] = json::array{
        "sh", "-c", "head -c 300000 /dev/zero | tr '\\0' x; printf '\\na\\rb\\r\\n'; echo end-of-output; sleep 60"};
    BOOST_TEST_REQUIRE(d.start(o), d.log_text());
    BOOST_TEST_REQUIRE(wait_until([&] { return d.log_text().find("end-of-output") != std::string::npos; }),
                       d.log_text().substr(0, 2000));
    const std::string log = d.log_text();
    BOOST_TEST(longest_line(log) < 16u * 1024 + 200, "longest line " << longest_line(log));
    std::size_t xs = 0;  // the line's first 16 KiB arrive, in one [box] line
    std::istringstream lines(log);
    for (std::string line; std::getline(lines, line);)
        if (const std::size_t at = line.find("[box] "); at != std::string::npos)
            xs += static_cast<std::size_t>(std::count(line.begin() + static_cast<long>(at + 6), line.end(), 'x'));
    BOOST_TEST(xs == 16u * 1024);
    BOOST_TEST(log.find("x ... [line cut at 16384 bytes]\n") != std::string::npos);
    BOOST_TEST(log.find("] a\n") != std::string::npos);
    BOOST_TEST(log.find("] b\n") != std::string::npos);
}

// Item 11: a daemon killed with SIGKILL takes its LocalContainer processes
// along; the next daemon binds the same port and serves.
BOOST_AUTO_TEST_CASE(container_processes_die_with_a_killed_daemon) {
    UpDaemon d;
    Objects o;
    const int port = 20000 + static_cast<int>(::getpid() % 20000);
    o.container["spec"].as_object()["command"] =
        json::array{"busybox", "httpd", "-f", "-p", "127.0.0.1:" + std::to_string(port), "-h", "."};
    BOOST_TEST_REQUIRE(d.start(o), d.log_text());
    const auto running_pid = [&]() -> long {
        const json::value s = d.status_of("localcontainers", "box");
        if (!s.is_object() || s.at("containerState").at("status") != json::value("running")) return -1;
        const CommandResult r = run_command("pgrep -f 'httpd -f -p 127.0.0.1:" + std::to_string(port) + "'");
        return r.output.empty() ? -1 : std::stol(r.output);
    };
    long child = -1;
    BOOST_TEST_REQUIRE(wait_until([&] { return (child = running_pid()) > 0; }), d.log_text());
    // The daemon is the httpd's parent.
    const std::string status = read_file("/proc/" + std::to_string(child) + "/status");
    const std::size_t at = status.find("PPid:");
    BOOST_TEST_REQUIRE(at != std::string::npos);
    const long daemon_pid = std::stol(status.substr(at + 5));
    BOOST_TEST_REQUIRE(::kill(static_cast<pid_t>(daemon_pid), SIGKILL) == 0);
    d.stop();  // reaps it
    const auto alive = [](long pid) {
        const std::string stat = read_file("/proc/" + std::to_string(pid) + "/stat");
        const std::size_t paren = stat.rfind(')');
        return paren != std::string::npos && paren + 2 < stat.size() && stat[paren + 2] != 'Z';
    };
    BOOST_TEST(wait_until([&] { return !alive(child); }, 10s), "the httpd outlived the daemon");

    BOOST_TEST_REQUIRE(d.start(o), d.log_text());
    BOOST_TEST(wait_until([&] { return running_pid() > 0; }), d.log_text());
    write_file(d.src / "after.txt", "restarted");
    BOOST_TEST(wait_until([&] { return holds(d.in_app("after.txt"), "restarted"); }), d.log_text());
    BOOST_TEST(d.log_text().find("Address already in use") == std::string::npos, d.log_text());
}

// Item 14: messages a user can act on.
BOOST_AUTO_TEST_CASE(object_file_errors_say_line_and_column_and_half_writes_settle) {
    UpDaemon d;
    const fs::path more = d.dir / "more";
    write_file(more / "bad.json", "{\n  \"kind\": \"ConfigMap\",\n  \"metadata\": {\"name\": x}\n}\n");
    BOOST_TEST_REQUIRE(d.start(Objects{}, {"--debounce", "0", more.string()}), d.log_text());
    const std::string log = d.log_text();
    BOOST_TEST(log.find((more / "bad.json").string() + ":3:24: invalid JSON: metadata.name: syntax error") !=
                   std::string::npos,
               log);
    BOOST_TEST(log.find("boost") == std::string::npos, log);

    // Written in two pieces, 300 ms apart, in place: no "incomplete JSON", the object loads.
    const std::string text = R"({"kind": "ConfigMap", "metadata": {"name": "slow"}, "data": {"k": "v"}})";
    {
        std::lock_guard lock(writing_or_spawning());
        const int fd = ::open((more / "slow.json").c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
        BOOST_TEST_REQUIRE(fd >= 0);
        BOOST_TEST(::write(fd, text.data(), 20) == 20);
        std::this_thread::sleep_for(300ms);
        BOOST_TEST(::write(fd, text.data() + 20, text.size() - 20) == static_cast<ssize_t>(text.size() - 20));
        ::close(fd);
    }
    BOOST_TEST(wait_until([&] { return d.get("configmaps").at("items").as_array().size() == 1u; }), d.log_text());
    BOOST_TEST(d.log_text().find("incomplete JSON") == std::string::npos, d.log_text());
}

BOOST_AUTO_TEST_CASE(a_file_name_cannot_forge_log_lines) {
    UpDaemon d;
    BOOST_TEST_REQUIRE(d.start(Objects{}), d.log_text());
    write_file(d.src / "evil\nFORGED error everything failed", "e");
    BOOST_TEST(wait_until([&] { return holds(d.in_app("evil\nFORGED error everything failed"), "e"); }));
    const std::string log = d.log_text();
    BOOST_TEST(log.find("\nFORGED") == std::string::npos, log);
    BOOST_TEST(log.find("evil\\nFORGED") != std::string::npos, log);
}

BOOST_AUTO_TEST_CASE(usage_errors_versions_and_admission_warnings) {
    UpDaemon d;
    write_file(d.objects, Objects{}.text());
    const CommandResult workers = up_for("", "--workers 100000 " + quoted(d.objects), 10);
    BOOST_TEST(workers.exit_code == 2, workers.output);
    BOOST_TEST(workers.output.find("--workers needs a whole number from 1 to 64, got 100000") != std::string::npos,
               workers.output);

    const CommandResult version = run_command(std::string(LU_HOST_BIN) + " --version 2>&1");
    BOOST_TEST(version.exit_code == 0, version.output);
    BOOST_TEST(version.output.find("lu-host 0.1.0\nSDK ABI 1\n") == 0u, version.output);
    BOOST_TEST(version.output.find("liveupdate  liveupdate ") != std::string::npos, version.output);
    BOOST_TEST(version.output.find("updater     local ") != std::string::npos, version.output);

    Objects o;
    o.lu_spec()["syncs"] = json::array{json::object{{"localPath", "src"}, {"containerPath", "/app"}},
                                       json::object{{"localPath", "../elsewhere"}, {"containerPath", "/other"}}};
    o.extra.push_back(json::parse(R"({"apiVersion": "liveupdate.dev/v1alpha1", "kind": "LocalContainer",
        "metadata": {"name": "everything"}, "spec": {"root": "/"}})")
                          .as_object());
    BOOST_TEST_REQUIRE(d.start(o), d.log_text());
    const std::string log = d.log_text();
    BOOST_TEST(log.find("LiveUpdate/lu: spec.syncs[1].localPath " + d.dir.parent_path().string() +
                        "/elsewhere is outside spec.basePath " + d.dir.string()) != std::string::npos,
               log);
    BOOST_TEST(log.find("spec.syncs[0].localPath") == std::string::npos, log);
    BOOST_TEST(log.find("LocalContainer/everything: spec.root is \"/\"") != std::string::npos, log);

    const CommandResult loaded =
        run_command("LU_HOST_CONTROL_SOCKET=" + quoted(d.socket) + " " + LU_HOST_BIN + " --version 2>&1");
    BOOST_TEST(loaded.output.find("loaded by the lu-host up at " + d.socket.string()) != std::string::npos,
               loaded.output);
}

// A member of another type is the plugin's admission to refuse, naming the
// field: the warnings read before it pass it over, at start and on an edit
// alike, and the daemon runs on.
BOOST_AUTO_TEST_CASE(a_member_of_another_type_is_refused_and_the_daemon_runs_on) {
    UpDaemon d;
    Objects o;
    o.lu_spec()["basePath"] = 5;
    BOOST_TEST_REQUIRE(d.start(o), d.log_text());
    const std::string refused = "LiveUpdate/lu: rejected: spec.basePath";
    BOOST_TEST(wait_until([&] { return d.log_text().find(refused) != std::string::npos; }), d.log_text());

    write_file(d.objects, Objects{}.text());
    BOOST_TEST(wait_until([&] { return d.get("liveupdates").at("items").as_array().size() == 1u; }), d.log_text());
    Objects edited;
    edited.lu_spec()["syncs"] = json::array{5};
    write_file(d.objects, edited.text());
    BOOST_TEST(wait_until([&] { return d.log_text().find("spec.syncs[0]") != std::string::npos; }), d.log_text());
    BOOST_TEST(d.get("liveupdates").is_object(), d.log_text());
}

// Item 13: a stopped or failed LiveUpdate says why each later batch is
// skipped and what clears it, and resumes once its cause is gone.
BOOST_AUTO_TEST_CASE(skipped_changes_are_explained_and_a_sync_folder_back_resumes) {
    UpDaemon d;
    const fs::path outside = d.dir / "outside";
    fs::create_directories(outside);
    // The container folder itself a symlink leaving the container: the local
    // updater refuses to write through it (below it, a symlink gives way).
    fs::create_directories(d.root);
    fs::create_directory_symlink(outside, d.root / "app");
    fs::create_directories(d.src / "out");
    BOOST_TEST_REQUIRE(d.start(Objects{}), d.log_text());
    const auto failed_reason = [&] {
        const json::value s = d.status_of("liveupdates", "lu");
        const json::value *f = s.is_object() ? s.as_object().if_contains("failed") : nullptr;
        return f != nullptr && f->is_object() ? std::string(f->at("reason").as_string()) : std::string();
    };
    // An update that fails (a symlink leaving the container folder), then a change that must wait.
    write_file(d.src / "out/evil.txt", "e");
    BOOST_TEST_REQUIRE(wait_until([&] { return failed_reason() == "UpdateFailed"; }), d.log_text());
    write_file(d.src / "later.txt", "l");
    BOOST_TEST(
        wait_until([&] {
            return d.log_text().find("changed file(s) for container box: its last update failed (UpdateFailed") !=
                   std::string::npos;
        }),
        d.log_text());
    BOOST_TEST(d.log_text().find("A new build of the resource clears this") != std::string::npos);
    BOOST_TEST(!holds(d.in_app("later.txt"), "l"));  // Tilt's rule stands: a failed container gets no updates
    BOOST_TEST(!fs::exists(outside / "out/evil.txt"));
}

BOOST_AUTO_TEST_CASE(a_deleted_sync_folder_stops_updates_until_it_is_back) {
    UpDaemon d;
    BOOST_TEST_REQUIRE(d.start(Objects{}), d.log_text());
    write_file(d.src / "a.txt", "a");
    BOOST_TEST_REQUIRE(wait_until([&] { return holds(d.in_app("a.txt"), "a"); }), d.log_text());
    fs::remove_all(d.src);
    BOOST_TEST_REQUIRE(wait_until([&] {
                           return d.log_text().find("UpdateStopped: No update plan: error stat'ing") !=
                                  std::string::npos;
                       }),
                       d.log_text());
    write_file(d.src / "b.txt", "b");
    BOOST_TEST(wait_until([&] { return holds(d.in_app("b.txt"), "b"); }), d.log_text());
    BOOST_TEST(wait_until([&] { return !fs::exists(d.in_app("a.txt")); }), d.log_text());
    BOOST_TEST(d.log_text().find("live updates to container box resume") != std::string::npos, d.log_text());
}

// Item 14: an objects folder moved away and back is said so; its objects go and come back.
BOOST_AUTO_TEST_CASE(an_objects_folder_moved_away_and_back) {
    UpDaemon d;
    const fs::path more = d.dir / "more";
    write_file(more / "cm.json", R"({"kind": "ConfigMap", "metadata": {"name": "cm"}, "data": {"k": "v"}})");
    BOOST_TEST_REQUIRE(d.start(Objects{}, {"--debounce", "0", more.string() + "/"}), d.log_text());
    const auto config_maps = [&] {
        const json::value list = d.get("configmaps");
        return list.is_object() ? list.at("items").as_array().size() : 99u;
    };
    BOOST_TEST_REQUIRE(config_maps() == 1u);
    fs::rename(more, d.dir / "elsewhere");
    BOOST_TEST(wait_until([&] { return config_maps() == 0u; }), d.log_text());
    BOOST_TEST(d.log_text().find("objects folder " + more.string() + " was moved away or deleted") != std::string::npos,
               d.log_text());
    fs::rename(d.dir / "elsewhere", more);
    BOOST_TEST(wait_until([&] { return config_maps() == 1u; }), d.log_text());
    const std::string log = d.log_text();
    BOOST_TEST(log.find("objects folder " + more.string() + " is there (again)") != std::string::npos, log);
    BOOST_TEST(log.find("invalid JSON") == std::string::npos, log);
    BOOST_TEST(log.find("not read") == std::string::npos, log);
}

namespace {

bool contains(const std::string &text, const std::string &part) { return text.find(part) != std::string::npos; }

// The journal of the test's one container in the state folder ("" when there is none).
fs::path journal_in(const fs::path &state) {
    std::error_code ec;
    for (const auto &e : fs::directory_iterator(state, ec))
        if (e.path().extension() == ".journal") return e.path();
    return {};
}

std::size_t files_in(const fs::path &dir) {
    std::error_code ec;
    std::size_t n = 0;
    for (auto it = fs::directory_iterator(dir, ec); !ec && it != fs::directory_iterator(); it.increment(ec)) ++n;
    return n;
}

}  // namespace

// Issue 33 item 4: a second daemon on a state folder would compact the
// journals the first one appends to; it is refused at start, naming the
// folder and the first one's pid, and the first one's journals stay whole.
BOOST_AUTO_TEST_CASE(a_second_daemon_on_a_state_folder_is_refused_and_the_first_keeps_its_record) {
    UpDaemon d;
    write_file(d.src / "a.txt", "alpha");
    Objects o;
    o.lu_spec()["initialSync"] = json::object{};  // a second daemon would open (and compact) the journal at once
    BOOST_TEST_REQUIRE(d.start(o), d.log_text());
    BOOST_TEST_REQUIRE(wait_until([&] { return holds(d.in_app("a.txt"), "alpha"); }), d.log_text());

    const CommandResult second =
        up_for("LIVEUPDATE_STATE_DIR=" + quoted(d.state),
               "--no-web --control-socket " + quoted(d.dir / "second.sock") + " " + quoted(d.objects), 15);
    BOOST_TEST(second.exit_code == 1, second.output);
    BOOST_TEST(contains(second.output, "cannot use the state folder: " + d.state.string() +
                                           ": another lu-host up (pid " + std::to_string(d.pid()) + ")"),
               second.output);

    // Nor does the control socket's refusal advise running a second daemon.
    const CommandResult on_socket =
        up_for("LIVEUPDATE_STATE_DIR=" + quoted(d.dir / "other-state"),
               "--no-web --control-socket " + quoted(d.socket) + " " + quoted(d.objects), 15);
    BOOST_TEST(on_socket.exit_code == 1, on_socket.output);
    BOOST_TEST(contains(on_socket.output, "another lu-host up (pid " + std::to_string(d.pid()) +
                                              ") already serves the control socket " + d.socket.string() + "\n"),
               on_socket.output);

    write_file(d.src / "b.txt", "beta");
    BOOST_TEST_REQUIRE(wait_until([&] { return holds(d.in_app("b.txt"), "beta"); }), d.log_text());
    const std::string journal = read_file(journal_in(d.state));
    BOOST_TEST(contains(journal, "+\"/app/a.txt\"\n"), journal);
    BOOST_TEST(contains(journal, "+\"/app/b.txt\"\n"), journal);
}

// Issue 33 item 10: a state folder that cannot be used stops the daemon at
// start, saying what, where and why; what is in the way is left alone.
BOOST_AUTO_TEST_CASE(a_state_folder_that_is_a_file_is_reported_at_start) {
    UpDaemon d;
    write_file(d.objects, Objects{}.text());
    write_file(d.state, "my notes");
    const std::string socket = " --no-web --control-socket " + quoted(d.socket) + " ";
    const CommandResult by_env = up_for("LIVEUPDATE_STATE_DIR=" + quoted(d.state), socket + quoted(d.objects), 10);
    BOOST_TEST(by_env.exit_code == 1, by_env.output);
    BOOST_TEST(contains(by_env.output, "lu-host up: cannot use the state folder: " + d.state.string() + ": " +
                                           d.state.string() + " is not a folder"),
               by_env.output);
    const CommandResult by_flag = up_for("", "--state-dir " + quoted(d.state) + socket + quoted(d.objects), 10);
    BOOST_TEST(by_flag.exit_code == 1, by_flag.output);
    BOOST_TEST(contains(by_flag.output, "is not a folder"), by_flag.output);
    BOOST_TEST(holds(d.state, "my notes"));
}

// Issue 33 item 7: `rm -rf vendor && npm install` over and over, with a
// daemon that runs throughout: the journal's size follows what it holds.
BOOST_AUTO_TEST_CASE(the_record_stays_bounded_over_cycles_of_recreating_ten_thousand_files) {
    constexpr int kFiles = 10000;
    UpDaemon d;
    BOOST_TEST_REQUIRE(d.start(Objects{}), d.log_text());
    const fs::path vendor = d.src / "vendor";
    const fs::path vendor_in_app = d.in_app("vendor");
    std::vector<std::uintmax_t> sizes;
    for (int cycle = 0; cycle < 3; ++cycle) {
        fs::create_directories(vendor);
        for (int i = 0; i < kFiles; ++i)
            write_file(vendor / ("module-" + std::to_string(i) + ".js"), "exports.n = " + std::to_string(i) + ";\n");
        BOOST_TEST_REQUIRE(
            wait_until([&] { return files_in(vendor_in_app) == static_cast<std::size_t>(kFiles); }, 120s),
            "cycle " << cycle << ": " << files_in(vendor_in_app) << " files synced; " << d.log_text().substr(0, 2000));
        sizes.push_back(fs::file_size(journal_in(d.state)));
        fs::remove_all(vendor);
        BOOST_TEST_REQUIRE(wait_until([&] { return !fs::exists(vendor_in_app); }, 60s), d.log_text().substr(0, 2000));
    }
    BOOST_TEST_MESSAGE("the journal's size after each cycle: " << sizes[0] << ", " << sizes[1] << ", " << sizes[2]);
    for (std::size_t cycle = 1; cycle < sizes.size(); ++cycle)
        BOOST_TEST(sizes[cycle] < sizes[0] * 3 / 2,
                   "cycle " << cycle << ": " << sizes[cycle] << " bytes, against " << sizes[0] << " after the first");
}
