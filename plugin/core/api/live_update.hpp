// The LiveUpdate kind (tilt.dev/v1alpha1), plus this project's `local` selector.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <boost/json.hpp>

#include "common/micro_time.hpp"

namespace liveupdate::api {

struct LiveUpdateSource {
    std::string file_watch;
    std::string image_map;
};

struct LiveUpdateKubernetesSelector {
    std::string discovery_name;
    std::string apply_name;
    std::string image;
    std::string container_name;
    std::string image_map_name;
};

struct LiveUpdateDockerComposeSelector {
    std::string service;
};

struct LiveUpdateLocalSelector {
    std::string container;
};

struct LiveUpdateSelector {
    std::optional<LiveUpdateKubernetesSelector> kubernetes;
    std::optional<LiveUpdateDockerComposeSelector> docker_compose;
    std::optional<LiveUpdateLocalSelector> local;
};

struct LiveUpdateSync {
    std::string local_path;
    std::string container_path;
    // Not in Tilt: container files that come back to local_path (ignore
    // syntax, relative to container_path; docs/sync-back.md). Empty: one-way.
    std::vector<std::string> sync_back{};
};

struct LiveUpdateExec {
    std::vector<std::string> args;
    std::vector<std::string> trigger_paths;
    bool echo_off = false;
    // Not in Tilt: how the command runs (Compose's exec.user, working_dir,
    // environment as "KEY=VALUE", privileged); empty: the container's default.
    std::string user{};
    std::string working_dir{};
    std::vector<std::string> env{};
    bool privileged = false;
};

struct LiveUpdateSpec {
    std::string base_path;
    LiveUpdateSelector selector;
    std::vector<LiveUpdateSource> sources;
    std::vector<std::string> stop_paths;
    std::vector<LiveUpdateSync> syncs;
    std::vector<LiveUpdateExec> execs;
    std::string restart;  // "auto" (default) or "always"
    // Not in Tilt: a change under one of these (relative to basePath) restarts
    // the container after its update, even when no sync maps it (Compose's
    // sync+restart and restart watch actions).
    std::vector<std::string> restart_paths;
    bool initial_sync = false;
};

struct LiveUpdateStateFailed {
    std::string reason;
    std::string message;
    common::MicroTime last_transition_time;
    bool operator==(const LiveUpdateStateFailed &) const = default;
};

struct LiveUpdateContainerStateWaiting {
    std::string reason;
    std::string message;
    bool operator==(const LiveUpdateContainerStateWaiting &) const = default;
};

struct LiveUpdateContainerStatus {
    std::string container_name;
    std::string container_id;
    std::string pod_name;
    std::string namespace_name;
    common::MicroTime last_file_time_synced;
    std::string last_exec_error;
    std::optional<LiveUpdateContainerStateWaiting> waiting;
    // Ours, not Tilt's: how the updater reached into the container ("none",
    // "injected", "copied"; "" unknown) and when an update last restarted its
    // process (zero: not since the LiveUpdate began).
    std::string agent{};
    common::MicroTime last_restart_time{};
    bool operator==(const LiveUpdateContainerStatus &) const = default;
};

struct LiveUpdateStatus {
    std::vector<LiveUpdateContainerStatus> containers;
    std::optional<LiveUpdateStateFailed> failed;
    bool operator==(const LiveUpdateStatus &) const = default;
};

LiveUpdateSpec decode_live_update_spec(const boost::json::object *spec);
LiveUpdateStatus decode_live_update_status(const boost::json::object *status);
boost::json::value encode_live_update_status(const LiveUpdateStatus &status);

}  // namespace liveupdate::api
