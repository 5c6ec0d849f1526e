// `lu-host up`: keeps the objects of the given files in the engine, watches
// those files and every FileWatch's paths, supervises LocalContainers,
// reconciles due LiveUpdates on worker threads through the updaters,
// answers `get` / `describe` / `trigger` / `verify` on the control socket,
// verifies containers on its own (--verify-every) and serves the status page
// (host/web).
#pragma once

#include <chrono>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "host/up/up_log.hpp"

namespace liveupdate::host::up {

// A Compose project given to `lu-host up` (-f FILE... or a PATH holding one).
struct ComposeProjectOption {
    std::vector<std::string> files;   // merge order
    std::optional<std::string> name;  // -p
};

struct UpOptions {
    std::vector<std::string> paths;  // object files or folders
    std::vector<ComposeProjectOption> compose_projects;
    // --from-cluster: the objects of the namespace (an operator), paths relative to project_dir.
    bool from_cluster = false;
    // --allow-sync-back: LiveUpdates from the cluster may bring container files back (docs/sync-back.md).
    bool allow_sync_back = false;
    std::string project_dir;
    std::filesystem::path plugin;  // the liveupdate plugin
    std::filesystem::path local_updater;
    std::string local_updater_config = "{}";
    std::map<std::string, std::filesystem::path> extra_updaters;  // class → plugin file
    std::optional<std::filesystem::path> updater_config;          // overrides the classes it names; watched
    // Kubernetes (discovery and the kubernetes updater): kubectl's --kubeconfig, --context, --namespace.
    std::string kubeconfig;
    std::string kube_context;
    std::string kube_namespace;
    std::string control_socket;
    bool web = true;  // the status page
    std::string web_address = "127.0.0.1";
    unsigned short web_port = 10351;
    bool web_port_given = false;  // else a taken default port gives way to a free one
    std::chrono::milliseconds debounce{50};
    std::chrono::milliseconds max_wait{10000};
    unsigned workers = 2;
    // `lu-host verify` on its own, repairing what differs: every verify_every
    // (zero: never on a timer), and after an event that may have lost changes.
    std::chrono::milliseconds verify_every{0};
    bool verify_after_loss = true;
    std::string state_dir;  // the synced journals' folder; "" for the default places (host::StateFolderPlaces)
    LogFormat log_format = LogFormat::text;
    common::LogLevel log_level = common::LogLevel::info;
};

// Runs until SIGINT or SIGTERM; then lets reconciles in flight finish, stops
// the LocalContainer processes and returns 0. Throws (HostError,
// std::runtime_error) when it cannot start.
int run_up(const UpOptions &options);

}  // namespace liveupdate::host::up
