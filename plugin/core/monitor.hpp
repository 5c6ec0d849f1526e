// What the reconciler remembers about one LiveUpdate between reconciles
// (Tilt's monitor): the dependencies last seen, every file change per source,
// and per container the high-water mark and any failure.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include <boost/json.hpp>

#include "plugin/core/api/api_object.hpp"
#include "plugin/core/path_time_index.hpp"

namespace liveupdate {

struct SourceTrack {
    PathTimeIndex paths;  // newest change time per path
    std::vector<common::IgnoreDef> ignores;
    std::optional<boost::json::value> last_image_status;
    common::MicroTime image_build_start_time;  // of last_image_status; zero when unset
    std::optional<api::FileEvent> last_file_event;
};

struct ContainerKey {
    std::string container_id;
    std::string pod_name;
    std::string namespace_name;
    auto operator<=>(const ContainerKey &) const = default;
};

// A container's failed update (C07, C10): it gets no changes while the
// failure lasts. Set whole when an update fails, and dropped whole when a
// newer build, the container starting again, its cause going away or a
// repair clears it.
struct ContainerFailure {
    std::string reason;
    std::string message;
    // Oldest file time of the changes that failed; a build newer than it clears the failure.
    common::MicroTime low_water_mark;
    // The container's start time when its update failed (zero: unknown). A
    // container started again since then (`docker start`) no longer carries it.
    common::MicroTime container_started_at;
};

struct ContainerTrack {
    common::MicroTime last_file_time_synced;
    std::optional<ContainerFailure> failure;
    // Newest file time already reported as skipped because of the failure
    // (not kept in snapshots: at worst a reload says it once more).
    common::MicroTime skipped_reported_through;
    // What the last outcome that said them said: how the updater reached
    // into the container ("none", "injected", "copied"; "" unknown), and when
    // an update last restarted its process (zero: none did).
    std::string agent{};
    common::MicroTime last_restart_time{};
};

struct Monitor {
    Monitor() = default;
    // Moves spec_raw in with its memory resource; assigning it would copy.
    Monitor(std::string manifest_name, boost::json::value spec)
        : manifest(std::move(manifest_name)), spec_raw(std::move(spec)) {}

    std::string manifest;
    boost::json::value spec_raw;  // a changed spec starts a fresh monitor

    api::ObjectPtr last_kubernetes_discovery;
    api::ObjectPtr last_kubernetes_apply;
    api::ObjectPtr last_image_map;  // of the Kubernetes selector
    api::ObjectPtr last_docker_compose_service;
    api::ObjectPtr last_local_container;
    std::optional<api::ConfigMap> last_trigger_queue;

    std::map<std::string, SourceTrack> sources;  // by FileWatch name
    std::map<ContainerKey, ContainerTrack> containers;
    bool has_changes_to_sync = false;

    // True while some container may still need its initial sync.
    bool needs_initial_sync() const;
};

// F01/F02: consumes a FileWatch's events (when its newest event changed) into
// the source, skipping events older than the ImageMap's build start.
// image_map may be null (no imageMap in the source). Returns true on change.
bool consume_source(SourceTrack &source, const api::ApiObject &file_watch, const api::ApiObject *image_map);

// F03: forgets path changes older than the current build and clears
// container failures from before it (P04, C07). best_start_time: the resource's.
void garbage_collect_file_changes(Monitor &monitor, const std::vector<api::LiveUpdateSource> &sources,
                                  common::MicroTime best_start_time);

struct ChangedFiles {
    std::vector<std::string> files;  // sorted, unique
    common::MicroTime new_high_water_mark;
    common::MicroTime new_low_water_mark;
};

// F04: the paths of every source changed strictly after high_water_mark.
ChangedFiles files_changed_after(const Monitor &monitor, common::MicroTime high_water_mark);

}  // namespace liveupdate
