// The soak's `lu-host up`: a FileWatch on src/, the container's
// DockerComposeService and a LiveUpdate "web" syncing src/ to /app with an
// initial sync, and /app/gen back, through the docker updater and lu-agent. It runs from private
// copies of the liveupdate and docker updater plugins, so that a hot reload
// (a new copy over the old) reaches this daemon only. It can be SIGKILLed and
// started again on the same folder.
#pragma once

#include <sys/types.h>

#include <boost/json.hpp>

#include <filesystem>
#include <string>

namespace lu_soak {

struct DaemonBinaries {
    std::filesystem::path lu_host;
    std::filesystem::path liveupdate_plugin;
    std::filesystem::path docker_updater;
};

inline constexpr const char *kLiveUpdateName = "web";

class SoakDaemon {
public:
    // dir: an empty folder for the objects, src/, the plugin copies and the log.
    SoakDaemon(std::filesystem::path dir, DaemonBinaries binaries, const std::string &compose_project);
    ~SoakDaemon();  // SIGTERM
    SoakDaemon(const SoakDaemon &) = delete;
    SoakDaemon &operator=(const SoakDaemon &) = delete;

    std::filesystem::path src() const { return dir_ / "src"; }

    // Starts it and waits until it watches; throws with its log when it does not.
    void start();
    void kill9();
    void stop();

    // The LiveUpdate's status (null when the daemon does not answer).
    boost::json::value status() const;
    // `lu-host verify`, cut off after two minutes (exit code -1 then).
    struct Verified {
        int exit_code = -1;
        std::string output;
    };
    Verified verify() const;
    // A new copy of the plugin over the one in service; returns once the
    // daemon has reloaded it (throws with the log when it does not).
    void reload_liveupdate_plugin();
    void reload_docker_updater();

    std::string log_tail(std::size_t lines) const;
    // What its log says of the sync back from container, over every run of
    // the daemon on this folder: how many times it started, and whether the
    // last word was that it started (not that it stopped).
    struct SyncBackStarts {
        std::size_t started = 0;
        bool running = false;
    };
    SyncBackStarts sync_back_starts(const std::string &container) const;

private:
    std::string cli(const std::string &args) const;
    unsigned reloads_of(const std::filesystem::path &file) const;
    void replace_and_wait(const std::filesystem::path &built, const std::filesystem::path &copy);

    std::filesystem::path dir_;
    DaemonBinaries binaries_;
    pid_t pid_ = -1;
};

}  // namespace lu_soak
