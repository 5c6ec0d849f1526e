// Hot reload through a real `lu-host up` and the local updater: the liveupdate
// plugin rebuilt ten times (and three broken builds refused) while hundreds of
// files change, and the updater configuration edited while updates flow.
// Afterwards the container folder equals the source folder and, from the
// daemon's log, every file was synced, and synced again only when a new
// FileEvent named it: nothing lost, nothing applied twice, nothing resynced.
// (Each file appears whole, by a rename, so it normally has one FileEvent;
// `up`'s file watcher was seen to report a renamed file twice now and then
// under the reload's I/O, and such a second event rightly syncs it again.)
#define BOOST_TEST_MODULE up_reload_tests
#include <boost/test/unit_test.hpp>

#include <atomic>
#include <mutex>
#include <regex>
#include <set>
#include <sstream>

#include "up_daemon.hpp"

using namespace up_it;

namespace {

std::string run_cli(const std::string &args) {
    const std::string cmd = std::string(LU_HOST_BIN) + " " + args + " 2>&1";
    FILE *p = ::popen(cmd.c_str(), "r");
    std::string out;
    char buf[4096];
    for (std::size_t n; (n = std::fread(buf, 1, sizeof buf, p)) > 0;) out.append(buf, n);
    ::pclose(p);
    return out;
}

json::value plugins_of(const UpDaemon &daemon) {
    const std::string out = run_cli("plugins -o json --control-socket " + daemon.socket.string());
    boost::system::error_code ec;
    json::value v = json::parse(out, ec);
    return ec ? json::value(out) : v;
}

// The entry of the plugin with that name, or null.
json::value plugin_named(const UpDaemon &daemon, const std::string &name) {
    const json::value plugins = plugins_of(daemon);
    if (plugins.is_array())
        for (const auto &p : plugins.as_array())
            if (p.at("name") == json::value(name)) return p;
    return nullptr;
}

std::int64_t reloads_of(const UpDaemon &daemon, const std::string &name) {
    const json::value p = plugin_named(daemon, name);
    return p.is_object() ? p.at("reloads").to_number<std::int64_t>() : -1;
}

std::string last_error_of(const UpDaemon &daemon, const std::string &name) {
    const json::value p = plugin_named(daemon, name);
    const json::value *error = p.is_object() ? p.as_object().if_contains("lastError") : nullptr;
    return error != nullptr ? std::string(error->as_string()) : "";
}

// Replaces target by renaming a complete copy of source over it, as a build does.
void rename_over(const fs::path &source, const fs::path &target) {
    const fs::path staged = target.parent_path() / (".staged-" + target.filename().string());
    fs::copy_file(source, staged, fs::copy_options::overwrite_existing);
    fs::rename(staged, target);
}

// A new file appears whole (written under an ignored name, then renamed): one change.
void add_file(const UpDaemon &daemon, int i) {
    const std::string name = "f" + std::to_string(i);
    write_file(daemon.src / (name + ".ignored"), "content of " + name);
    fs::rename(daemon.src / (name + ".ignored"), daemon.src / (name + ".txt"));
}

// Writes files 0..count-1 in bursts of four with a pause after each, counting
// them in written. The pause lets the daemon catch up: under a change stream
// that never lets its queue go idle, `up` folds FileEvents beyond its 20th
// into newer ones, which may sync a file once more by design.
void write_in_bursts(const UpDaemon &daemon, int count, std::atomic<int> &written) {
    for (int i = 0; i < count; ++i) {
        add_file(daemon, i);
        written = i + 1;
        std::this_thread::sleep_for(std::chrono::milliseconds(i % 4 == 3 ? 50 : 2));
    }
}

// Records every (path, time) of the daemon's FileWatch events while alive, by
// polling `lu-host get filewatches` (a FileWatch keeps its newest 20 events).
class FileEventRecorder {
public:
    explicit FileEventRecorder(const UpDaemon &daemon)
        : thread_([this, &daemon] {
              while (!stop_) record(daemon.get("filewatches"));
          }) {}
    ~FileEventRecorder() { stop(); }
    void stop() {
        stop_ = true;
        if (thread_.joinable()) thread_.join();
    }
    // How many distinct events named the file (a path ending in /name).
    int events_naming(const std::string &name) const {
        std::lock_guard lock(mutex_);
        int count = 0;
        for (const auto &[path, time] : seen_)
            if (path.size() > name.size() && path.ends_with("/" + name)) ++count;
        return count;
    }

private:
    void record(const json::value &list) {
        if (!list.is_object() || !list.as_object().contains("items")) return;
        std::lock_guard lock(mutex_);
        for (const auto &fw : list.at("items").as_array()) {
            const json::value *status = fw.as_object().if_contains("status");
            const json::value *events = status != nullptr && status->is_object()
                                            ? status->as_object().if_contains("fileEvents")
                                            : nullptr;
            if (events == nullptr || !events->is_array()) continue;
            for (const auto &event : events->as_array())
                for (const auto &file : event.at("seenFiles").as_array())
                    seen_.emplace(std::string(file.as_string()), std::string(event.at("time").as_string()));
        }
    }

    std::atomic<bool> stop_{false};
    mutable std::mutex mutex_;
    std::set<std::pair<std::string, std::string>> seen_;
    std::thread thread_;
};

// How many times the daemon's log shows each of files 0..count-1 copied to /app.
std::vector<int> times_synced(const std::string &log, int count) {
    std::vector<int> times(count, 0);
    static const std::regex copied(R"(--> '/app/f([0-9]+)\.txt')");
    for (auto it = std::sregex_iterator(log.begin(), log.end(), copied); it != std::sregex_iterator(); ++it) {
        const int i = std::stoi((*it)[1].str());
        if (i < count) ++times[i];
    }
    return times;
}

std::size_t occurrences(const std::string &text, const std::string &needle) {
    std::size_t count = 0;
    for (std::size_t at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1)) ++count;
    return count;
}

void check_every_change_synced_once(const UpDaemon &daemon, FileEventRecorder &events, int files) {
    BOOST_TEST_REQUIRE(wait_until([&] { return tree_of(daemon.root / "app") == tree_of(daemon.src); },
                                  std::chrono::seconds(60)),
                       daemon.log_text());
    std::this_thread::sleep_for(std::chrono::milliseconds(100));  // the recorder's last poll
    events.stop();
    const std::string log = daemon.log_text();
    const std::vector<int> times = times_synced(log, files);
    std::string lost, repeated;  // file names, and the log lines naming the repeated ones
    for (int i = 0; i < files; ++i) {
        const std::string name = "f" + std::to_string(i) + ".txt";
        if (times[i] == 0) lost += " " + name;
        if (times[i] > std::max(1, events.events_naming(name))) {
            repeated += "\n" + name + " (" + std::to_string(events.events_naming(name)) + " FileEvent(s)):";
            std::istringstream lines(log);
            for (std::string line; std::getline(lines, line);)
                if (line.find("/" + name + "'") != std::string::npos || line.find("/" + name + "\"") != std::string::npos)
                    repeated += "\n  " + line;
        }
    }
    BOOST_TEST(lost.empty(), "lost:" << lost);
    BOOST_TEST(repeated.empty(), "synced more often than changed:" << repeated);
    BOOST_TEST(occurrences(log, "Initial sync") == 0u);
}

}  // namespace

BOOST_AUTO_TEST_CASE(ten_reloads_under_load_lose_nothing_and_apply_nothing_twice) {
    constexpr int kFiles = 400;
    UpDaemon daemon;
    const fs::path plugin = daemon.dir / "plugins" / "libliveupdate.so";
    fs::create_directories(plugin.parent_path());
    fs::copy_file(LU_TEST_LIVEUPDATE_PLUGIN, plugin);
    BOOST_TEST_REQUIRE(daemon.start(Objects{}, {"--debounce", "0", "--plugin", plugin.string()}), daemon.log_text());

    FileEventRecorder events(daemon);
    std::atomic<int> written{0};
    std::thread writer([&] { write_in_bursts(daemon, kFiles, written); });
    // Ten rebuilds; three of them first go through a broken build that must be refused.
    const std::map<int, std::pair<const char *, const char *>> broken{
        {2, {LU_TEST_FUTURE_ABI_LIVEUPDATE, "serves ABI 2..3, host needs 1"}},
        {5, {nullptr, "truncated"}},
        {8, {LU_TEST_RESTORE_FAILS_LIVEUPDATE, "restore failed"}}};
    for (int reload = 1; reload <= 10; ++reload) {
        if (auto b = broken.find(reload); b != broken.end()) {
            if (b->second.first != nullptr) {
                rename_over(b->second.first, plugin);
            } else {
                const std::string whole = read_file(LU_TEST_LIVEUPDATE_PLUGIN);
                write_file(plugin, whole.substr(0, 16 * 1024));
            }
            BOOST_TEST_REQUIRE(
                wait_until([&] { return last_error_of(daemon, "liveupdate").find(b->second.second) != std::string::npos; }),
                daemon.log_text());
            BOOST_TEST(reloads_of(daemon, "liveupdate") == reload - 1);
        }
        rename_over(LU_TEST_LIVEUPDATE_PLUGIN, plugin);
        BOOST_TEST_REQUIRE(wait_until([&] { return reloads_of(daemon, "liveupdate") == reload; }), daemon.log_text());
    }
    const int written_during_reloads = written.load();
    writer.join();
    BOOST_TEST_MESSAGE(written_during_reloads << " of " << kFiles << " files written while reloading");
    BOOST_TEST(written_during_reloads > 0);

    check_every_change_synced_once(daemon, events, kFiles);
    const std::string log = daemon.log_text();
    BOOST_TEST(occurrences(log, "refused, the running plugin stays in service") == 3u, log);
    BOOST_TEST(occurrences(log, "hot reload: liveupdate plugin " + plugin.string()) == 13u, log);
    BOOST_TEST(last_error_of(daemon, "liveupdate").empty());
    BOOST_TEST(daemon.stop() == 0);
}

BOOST_AUTO_TEST_CASE(editing_the_updater_configuration_swaps_updaters_while_updates_flow) {
    constexpr int kFiles = 150;
    UpDaemon daemon;
    const fs::path config = daemon.dir / "updaters.json";
    const fs::path calls = daemon.dir / "calls.jsonl";
    write_file(config, R"({"updaters": {"local": {"plugin": "local"}}})");
    BOOST_TEST_REQUIRE(daemon.start(Objects{}, {"--debounce", "0", "--config", config.string()}), daemon.log_text());
    BOOST_TEST(json::serialize(plugin_named(daemon, "local").at("classes")) == R"(["local"])");

    FileEventRecorder events(daemon);
    std::atomic<int> written{0};
    std::thread writer([&] { write_in_bursts(daemon, kFiles, written); });
    BOOST_TEST_REQUIRE(wait_until([&] { return written >= 20; }));
    write_file(config, json::serialize(json::object{
                           {"updaters", {{"local", {{"plugin", "sample"}, {"settings", {{"callLog", calls.string()}}}}}}}}));
    BOOST_TEST_REQUIRE(wait_until([&] { return plugin_named(daemon, "sample").is_object(); }), daemon.log_text());
    BOOST_TEST(plugin_named(daemon, "local").is_null());
    const std::string table = run_cli("plugins --control-socket " + daemon.socket.string());
    BOOST_TEST(table.find("KIND") == 0u, table);
    BOOST_TEST(std::regex_search(table, std::regex("\nupdater +sample +0\\.1\\.0 +1 +local +0 +/")), table);

    // A broken edit changes nothing.
    write_file(config, R"({"updaters": {"local": {"plugin": "sample",}}})");
    BOOST_TEST_REQUIRE(wait_until([&] { return daemon.log_text().find("not applied") != std::string::npos; }),
                       daemon.log_text());
    BOOST_TEST(daemon.log_text().find(config.string() + ": not valid JSON at line 1") != std::string::npos,
               daemon.log_text());
    BOOST_TEST(plugin_named(daemon, "sample").is_object());

    BOOST_TEST_REQUIRE(wait_until([&] { return read_file(calls).find(R"("call":"update")") != std::string::npos; }),
                       daemon.log_text());
    write_file(config, R"({"updaters": {"local": {"plugin": "local", "settings": {"workingDir": "/app"}}}})");
    BOOST_TEST_REQUIRE(wait_until([&] { return plugin_named(daemon, "local").is_object(); }), daemon.log_text());
    BOOST_TEST(plugin_named(daemon, "sample").is_null());
    BOOST_TEST(written < kFiles);  // the swaps happened while files kept changing
    writer.join();

    check_every_change_synced_once(daemon, events, kFiles);
    BOOST_TEST(read_file(calls).find(R"("call":"destroy")") != std::string::npos, read_file(calls));
    BOOST_TEST(daemon.stop() == 0);
}

BOOST_AUTO_TEST_CASE(a_configuration_that_cannot_be_served_stops_the_start_with_its_reason) {
    UpDaemon daemon;
    const fs::path config = daemon.dir / "updaters.json";
    write_file(daemon.objects, Objects{}.text());
    write_file(config, R"({"updaters": {"docker": {"plugin": "/nonexistent/libupdater_x.so"}}})");
    const std::string cmd = std::string(LU_HOST_BIN) + " up --control-socket " + daemon.socket.string() + " --config " +
                            config.string() + " " + daemon.objects.string() + " 2>&1";
    FILE *p = ::popen(cmd.c_str(), "r");
    std::string out;
    char buf[4096];
    for (std::size_t n; (n = std::fread(buf, 1, sizeof buf, p)) > 0;) out.append(buf, n);
    const int status = ::pclose(p);
    BOOST_TEST(WEXITSTATUS(status) == 3, out);
    BOOST_TEST(out.find("cannot load the updater of class docker: /nonexistent/libupdater_x.so: no such file") !=
                   std::string::npos,
               out);

    write_file(config, R"({"updaters": {"docker": {"plugin": "docker", "settings": 1}}})");
    p = ::popen(cmd.c_str(), "r");
    out.clear();
    for (std::size_t n; (n = std::fread(buf, 1, sizeof buf, p)) > 0;) out.append(buf, n);
    BOOST_TEST(WEXITSTATUS(::pclose(p)) == 1, out);
    BOOST_TEST(out.find("invalid updater configuration: " + config.string() +
                        ": updaters.docker.settings: must be an object, not a number") != std::string::npos,
               out);
}
