// A plugin whose load crashes, hot-reloaded into a real `lu-host up`: it is
// refused after a probe in a child process, the running plugin keeps serving,
// and no private copy of the plugin is left in the temporary folder.
#include <boost/test/unit_test.hpp>

#include <cstdlib>

#include "tests/integration/up_daemon.hpp"

using namespace up_it;

namespace {

json::value liveupdate_entry(const UpDaemon &daemon) {
    const json::value plugins = daemon.plugins();
    if (plugins.is_array())
        for (const auto &p : plugins.as_array())
            if (p.at("kind") == json::value("liveupdate")) return p;
    return nullptr;
}

std::string field(const json::value &entry, const char *key) {
    const json::value *v = entry.is_object() ? entry.as_object().if_contains(key) : nullptr;
    return v == nullptr ? "" : v->is_string() ? std::string(v->as_string()) : json::serialize(*v);
}

std::size_t private_copies_in(const fs::path &dir) {
    std::size_t n = 0;
    std::error_code ec;
    for (const auto &entry : fs::directory_iterator(dir, ec))
        if (entry.path().filename().string().starts_with("lu-host-plugin-")) ++n;
    return n;
}

void rename_into_place(const fs::path &source, const fs::path &target) {
    const fs::path staged = target.parent_path() / (".staged-" + target.filename().string());
    std::lock_guard lock(writing_or_spawning());
    fs::copy_file(source, staged, fs::copy_options::overwrite_existing);
    fs::rename(staged, target);
}

}  // namespace

BOOST_AUTO_TEST_CASE(a_plugin_that_crashes_when_loaded_is_refused_and_the_old_one_serves) {
    UpDaemon daemon;
    const fs::path plugin = daemon.dir / "plugins" / "libliveupdate.so";
    const fs::path tmp = daemon.dir / "tmp";
    fs::create_directories(plugin.parent_path());
    fs::create_directories(tmp);
    fs::copy_file(LU_TEST_LIVEUPDATE_PLUGIN, plugin);
    ::setenv("TMPDIR", tmp.c_str(), 1);  // the daemon's private copies go there
    const bool started = daemon.start(Objects{}, {"--debounce", "0", "--plugin", plugin.string()});
    ::unsetenv("TMPDIR");
    BOOST_TEST_REQUIRE(started, daemon.log_text());

    rename_into_place(LU_TEST_CRASHING_LIVEUPDATE, plugin);
    BOOST_TEST_REQUIRE(wait_outcome(
        wait_until([&] { return field(liveupdate_entry(daemon), "lastError").find("crashed") != std::string::npos; }),
        [&] { return daemon.log_text(); }));
    const json::value entry = liveupdate_entry(daemon);
    BOOST_TEST(field(entry, "name") == "liveupdate");
    BOOST_TEST(field(entry, "reloads") == "0");
    BOOST_TEST(field(entry, "lastError").find(plugin.string()) != std::string::npos);  // the file, not its copy
    BOOST_TEST(field(entry, "lastError").find("lu-host-plugin-") == std::string::npos);
    BOOST_TEST(daemon.log_text().find("refused, the running plugin stays in service") != std::string::npos);
    BOOST_TEST(private_copies_in(tmp) == 0u);

    // Still serving: a change syncs, and a good build is taken.
    write_file(daemon.src / "still.txt", "served");
    BOOST_TEST(wait_outcome(wait_until([&] { return read_file(daemon.in_app("still.txt")) == "served"; }),
                            [&] { return daemon.log_text(); }));
    rename_into_place(LU_TEST_LIVEUPDATE_PLUGIN, plugin);
    BOOST_TEST(wait_outcome(wait_until([&] { return field(liveupdate_entry(daemon), "reloads") == "1"; }),
                            [&] { return daemon.log_text(); }));
    BOOST_TEST(private_copies_in(tmp) == 0u);
    BOOST_TEST(daemon.stop() == 0);
}
