// The installed SDK, used as a third party would: install, build the sample
// updater plugin out of tree against the install, then let the installed
// lu-host serve the `local` class with it (updater configuration) and
// live-update through it; rebuilding it in place hot-reloads it.
#define BOOST_TEST_MODULE sdk_sample_tests
#include <boost/test/unit_test.hpp>

#include <cstdlib>

#include "tests/integration/up_daemon.hpp"

using namespace up_it;

namespace {

// Runs a shell command; its output goes to log. Returns the exit status.
int run(const std::string &command, const fs::path &log) {
    const std::string line = command + " >> '" + log.string() + "' 2>&1";
    const int status = std::system(line.c_str());
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

std::string quoted(const fs::path &p) { return "'" + p.string() + "'"; }

json::value plugin_named(const json::value &plugins, const std::string &name) {
    if (plugins.is_array())
        for (const auto &p : plugins.as_array())
            if (p.at("name") == json::value(name)) return p;
    return nullptr;
}

}  // namespace

BOOST_AUTO_TEST_CASE(a_plugin_built_against_the_installed_sdk_serves_live_updates) {
    const fs::path prefix = LU_SDK_PREFIX;
    UpDaemon daemon;
    const fs::path build_log = daemon.dir / "build.log";
    std::error_code ec;
    fs::remove_all(prefix, ec);

    BOOST_TEST_REQUIRE(run(std::string(LU_CMAKE) + " --install " + quoted(LU_BUILD_DIR) + " --prefix " + quoted(prefix),
                           build_log) == 0,
                       read_file(build_log));
    const fs::path plugins = prefix / LU_INSTALL_PLUGINDIR;
    const fs::path cmake_package = prefix / LU_INSTALL_LIBDIR / "cmake/liveupdate";
    for (const fs::path &installed :
         {prefix / "bin/lu-host", plugins / "libliveupdate.so", plugins / "libupdater_local.so", plugins / "lu-agent",
          prefix / "include/liveupdate/updater_plugin.h", prefix / "include/liveupdate/liveupdate.hpp",
          cmake_package / "liveupdateConfig.cmake"}) {
        BOOST_TEST(fs::exists(installed), installed);
    }
    // The installed lu-host finds its plugins in the installed layout, not in the build tree.
    const CommandResult version = run_command(quoted(prefix / "bin/lu-host") + " --version 2>&1");
    BOOST_TEST(version.output.find("installed plugins (" + plugins.string() + "):\n  liveupdate  liveupdate ") !=
                   std::string::npos,
               version.output);

    const fs::path sample_build = daemon.dir / "sample-build";
    BOOST_TEST_REQUIRE(run(std::string(LU_CMAKE) + " -S " + quoted(LU_SAMPLE_SOURCE) + " -B " + quoted(sample_build) +
                               " -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH=" + quoted(prefix),
                           build_log) == 0,
                       read_file(build_log));
    // The SDK came from the install, not from the source tree.
    BOOST_TEST(read_file(sample_build / "CMakeCache.txt").find("liveupdate_DIR:PATH=" + cmake_package.string()) !=
                   std::string::npos,
               read_file(build_log));
    BOOST_TEST_REQUIRE(run(std::string(LU_CMAKE) + " --build " + quoted(sample_build), build_log) == 0,
                       read_file(build_log));
    const fs::path plugin = sample_build / "libupdater_sample.so";
    BOOST_TEST_REQUIRE(fs::exists(plugin));

    const fs::path calls = daemon.dir / "calls.jsonl";
    const fs::path config = daemon.dir / "updaters.json";
    write_file(
        config,
        json::serialize(json::object{
            {"updaters",
             {{"local",
               {{"plugin", plugin.string()}, {"settings", {{"workingDir", "/app"}, {"callLog", calls.string()}}}}}}}}));
    BOOST_TEST_REQUIRE(daemon.start(Objects{}, {"--debounce", "0", "--config", config.string()}), daemon.log_text());

    const json::value sample = plugin_named(daemon.plugins(), "sample");
    BOOST_TEST_REQUIRE(sample.is_object(), json::serialize(daemon.plugins()));
    BOOST_TEST(sample.at("kind") == "updater");
    BOOST_TEST(sample.at("abi") == 1);
    BOOST_TEST(json::serialize(sample.at("classes")) == R"(["local"])");
    BOOST_TEST(sample.at("file") == json::value(plugin.string()));

    write_file(daemon.src / "hello.txt", "hello from the sample");
    BOOST_TEST_REQUIRE(
        wait_outcome(wait_until([&] { return read_file(daemon.in_app("hello.txt")) == "hello from the sample"; }),
                     [&] { return daemon.log_text(); }));
    BOOST_TEST_REQUIRE(wait_until([&] { return read_file(calls).find("/app/hello.txt") != std::string::npos; }));
    BOOST_TEST(read_file(calls).find(R"("call":"update")") != std::string::npos, read_file(calls));
    BOOST_TEST(daemon.log_text().find("sample updater: update #1 of lu via local") != std::string::npos,
               daemon.log_text());

    // A rebuild replaces the file: the daemon reloads it and keeps updating through it.
    fs::copy_file(plugin, daemon.dir / "rebuilt.so");
    fs::rename(daemon.dir / "rebuilt.so", plugin);
    BOOST_TEST_REQUIRE(wait_outcome(wait_until([&] {
                                        const json::value p = plugin_named(daemon.plugins(), "sample");
                                        return p.is_object() && p.at("reloads") == 1;
                                    }),
                                    [&] { return daemon.log_text(); }));
    write_file(daemon.src / "again.txt", "after the reload");
    BOOST_TEST(wait_outcome(wait_until([&] { return read_file(daemon.in_app("again.txt")) == "after the reload"; }),
                            [&] { return daemon.log_text(); }));
    BOOST_TEST(daemon.stop() == 0);
}
