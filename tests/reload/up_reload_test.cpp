// Hot reload through a real `lu-host up` and the local updater: the liveupdate
// plugin rebuilt ten times (and three broken builds refused) while hundreds of
// files change, and the updater configuration edited while updates flow.
// Each file appears whole, by a rename, so it is one change. Afterwards the
// container folder equals the source folder and, from the daemon's log, every
// file was synced exactly once: nothing lost, nothing applied twice.
#define BOOST_TEST_MODULE up_reload_tests
#include <boost/test/unit_test.hpp>

#include <atomic>
#include <regex>

#include "tests/integration/synced_once.hpp"

using namespace up_it;

namespace {

// The entry of the plugin with that name, or null.
json::value plugin_named(const UpDaemon &daemon, const std::string &name) {
    const json::value plugins = daemon.plugins();
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
    std::lock_guard lock(writing_or_spawning());
    fs::copy_file(source, staged, fs::copy_options::overwrite_existing);
    fs::rename(staged, target);
}

// A truncated build, renamed in whole as rename_over does: written in place
// it would be two changes (emptied, then its bytes) that a writer descheduled
// past the watcher's settle time makes two refused reloads, not one.
void rename_in(const std::string &bytes, const fs::path &target) {
    const fs::path staged = target.parent_path() / (".staged-" + target.filename().string());
    write_file(staged, bytes);
    fs::rename(staged, target);
}

// Writes files 0..count-1 in bursts of four with a pause after each, counting
// them in written: the files keep coming over the whole run of reloads.
void write_in_bursts(const UpDaemon &daemon, int count, std::atomic<int> &written) {
    for (int i = 0; i < count; ++i) {
        add_file(daemon, i);
        written = i + 1;
        std::this_thread::sleep_for(std::chrono::milliseconds(i % 4 == 3 ? 50 : 2));
    }
}

}  // namespace

BOOST_AUTO_TEST_CASE(ten_reloads_under_load_lose_nothing_and_apply_nothing_twice) {
    constexpr int kFiles = 400;
    UpDaemon daemon;
    const fs::path plugin = daemon.dir / "plugins" / "libliveupdate.so";
    fs::create_directories(plugin.parent_path());
    fs::copy_file(LU_TEST_LIVEUPDATE_PLUGIN, plugin);
    BOOST_TEST_REQUIRE(daemon.start(Objects{}, {"--debounce", "0", "--plugin", plugin.string()}), daemon.log_text());

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
                rename_in(whole.substr(0, std::size_t{16} * 1024), plugin);
            }
            BOOST_TEST_REQUIRE(wait_outcome(wait_until([&] {
                                                return last_error_of(daemon, "liveupdate").find(b->second.second) !=
                                                       std::string::npos;
                                            }),
                                            [&] { return daemon.log_text(); }));
            BOOST_TEST(reloads_of(daemon, "liveupdate") == reload - 1);
        }
        rename_over(LU_TEST_LIVEUPDATE_PLUGIN, plugin);
        BOOST_TEST_REQUIRE(wait_outcome(wait_until([&] { return reloads_of(daemon, "liveupdate") == reload; }),
                                        [&] { return daemon.log_text(); }));
    }
    const int written_during_reloads = written.load();
    writer.join();
    BOOST_TEST_MESSAGE(written_during_reloads << " of " << kFiles << " files written while reloading");
    BOOST_TEST(written_during_reloads > 0);

    check_every_change_synced_once(daemon, kFiles);
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

    std::atomic<int> written{0};
    std::thread writer([&] { write_in_bursts(daemon, kFiles, written); });
    BOOST_TEST_REQUIRE(wait_until([&] { return written >= 20; }));
    write_file(config,
               json::serialize(json::object{
                   {"updaters", {{"local", {{"plugin", "sample"}, {"settings", {{"callLog", calls.string()}}}}}}}}));
    BOOST_TEST_REQUIRE(wait_outcome(wait_until([&] { return plugin_named(daemon, "sample").is_object(); }),
                                    [&] { return daemon.log_text(); }));
    BOOST_TEST(plugin_named(daemon, "local").is_null());
    const std::string table = daemon.cli("plugins");
    BOOST_TEST(table.find("KIND") == 0u, table);
    BOOST_TEST(std::regex_search(table, std::regex("\nupdater +sample +0\\.1\\.0 +1 +local +0 +/")), table);

    // A broken edit changes nothing.
    write_file(config, R"({"updaters": {"local": {"plugin": "sample",}}})");
    BOOST_TEST_REQUIRE(
        wait_outcome(wait_until([&] { return daemon.log_text().find("not applied") != std::string::npos; }),
                     [&] { return daemon.log_text(); }));
    BOOST_TEST(daemon.log_text().find(config.string() + ": not valid JSON at line 1") != std::string::npos,
               daemon.log_text());
    BOOST_TEST(plugin_named(daemon, "sample").is_object());

    BOOST_TEST_REQUIRE(
        wait_outcome(wait_until([&] { return read_file(calls).find(R"("call":"update")") != std::string::npos; }),
                     [&] { return daemon.log_text(); }));
    write_file(config, R"({"updaters": {"local": {"plugin": "local", "settings": {"workingDir": "/app"}}}})");
    BOOST_TEST_REQUIRE(wait_outcome(wait_until([&] { return plugin_named(daemon, "local").is_object(); }),
                                    [&] { return daemon.log_text(); }));
    BOOST_TEST(plugin_named(daemon, "sample").is_null());
    BOOST_TEST(written < kFiles);  // the swaps happened while files kept changing
    writer.join();

    check_every_change_synced_once(daemon, kFiles);
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
    CommandResult run = run_command(cmd);
    const std::string &out = run.output;
    BOOST_TEST(run.exit_code == 3, out);
    BOOST_TEST(out.find("cannot load the updater of class docker: /nonexistent/libupdater_x.so: no such file") !=
                   std::string::npos,
               out);

    write_file(config, R"({"updaters": {"docker": {"plugin": "docker", "settings": 1}}})");
    run = run_command(cmd);
    BOOST_TEST(run.exit_code == 1, out);
    BOOST_TEST(out.find("invalid updater configuration: " + config.string() +
                        ": updaters.docker.settings: must be an object, not a number") != std::string::npos,
               out);
}
