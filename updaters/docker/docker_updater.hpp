// The docker updater's logic, free of the C ABI: checks the container, deletes,
// copies (tar through exec, or the archive API when the image has no tar),
// runs commands, restarts; digests container paths for `lu-host verify`.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "common/agent_client/agent_driver.hpp"
#include "common/docker_engine/engine_client.hpp"
#include "common/docker_engine/exec_session.hpp"
#include "common/mutex.hpp"
#include "liveupdate/updater.hpp"
#include "updaters/docker/archive_api_folders.hpp"
#include "updaters/docker/updater_config.hpp"
#include "updaters/shared/container_owner.hpp"
#include "updaters/shared/path_preparation.hpp"
#include "updaters/shared/replayable_archive.hpp"
#include "updaters/shared/unguarded_notice.hpp"

namespace liveupdate::docker {

// Whether a run step needs options only the engine's exec can honour
// (privileged, another user than the agent's, a working directory or env):
// such a step goes through an exec of its own, not the agent.
bool needs_own_exec(const updater::RunStep &run);

class DockerUpdater {
public:
    explicit DockerUpdater(UpdaterConfig config);

    // Logs to request.log. Never throws for runtime failures: they become an
    // infra failure. A run step's "" user is the configured user's.
    updater::Outcome update(const updater::Request &request);

    // Digests request.path (absolute) in the container through its lu-agent
    // session, in turn with the container's updates. Never throws: where the
    // agent cannot run, the outcome is `unavailable` saying why. keep_going
    // false (asked while the agent is silent): `stopped`, the session ended.
    agent_client::DigestOutcome digest(const updater::ContainerRef &container, const agent_protocol::Digest &request,
                                       const agent_client::DigestEntryFn &each, const updater::UpdateLog &log,
                                       const std::function<bool()> &keep_going = {});

    // Starts the container's lu-agent session ahead of its first update
    // (lu_updater_api.prepare). Throws what kept it from starting; where the agent
    // cannot run, updates take the exec path as they would have anyway.
    void prepare(const updater::ContainerRef &container, const updater::UpdateLog &log);

    // A new lu-agent session of the container's own, for sync back's watch
    // (liveupdate/ext/sync_back.h). Throws updaters::WatchUnsupported where
    // the agent cannot run, anything else when the container cannot be reached.
    std::unique_ptr<agent_client::AgentSession> watch_session(const updater::ContainerRef &container,
                                                              const updater::UpdateLog &log);

    // How many agent sessions were started to replace one that ended or broke.
    std::uint64_t reconnect_count() const noexcept { return agents_.reconnect_count(); }
    // How many agent sessions were started, first ones and replacements alike.
    std::uint64_t session_count() const noexcept { return agents_.session_count(); }

private:
    struct Target {
        std::string id;
        std::string name;
        std::string started_at;  // State.StartedAt: which start of the container this is
        std::int64_t pid = 0;    // State.Pid, as the engine sees it
        std::string display() const { return name + " (" + id.substr(0, 12) + ")"; }
    };
    // A container as the agent driver reaches it (docker_agent_target.cpp).
    class AgentContainer;

    // Through lu-agent (common/agent_client/agent_driver.hpp): nullopt when the agent cannot run
    // in this container, after saying why once; the caller then takes the exec path.
    // archive: the update's archive (null without copies), passed over again for each attempt.
    // inspected: whether target comes from an inspect (else only named by its full ID, inspected
    // unless a live session says it runs); made true when the update inspects it.
    std::optional<updater::Outcome> update_through_agent(Target &target, bool &inspected,
                                                         const updater::Request &request,
                                                         updaters::ReplayableArchive *archive,
                                                         const updater::UpdateLog &log);
    docker_engine::ExecTimeouts timeouts() const;

    // The container's state and its restart (container_state.cpp).
    // The container, running; its name looked up when the reference has none.
    Target inspect_target(const updater::ContainerRef &container);
    // Explains a failure by the container's state when it stopped or vanished
    // meanwhile; after a kill, waits a little for the daemon to record the exit.
    std::string container_gone_reason(const Target &target, bool killed);
    // Whether the container is paused now (a 409 after inspect_target); false when that cannot be told.
    bool is_paused(const Target &target);
    // Why the agent's failure to start was the container's passing state (killed, paused,
    // restarted since `target` was inspected), or empty.
    std::string start_interrupted(const Target &target, const std::string &why);
    void restart(const Target &target, const updater::UpdateLog &log);
    // A succeeded update, the container restarted when the step asks it (hot reload off).
    updater::Outcome restart_if_asked(updater::Outcome result, const Target &target, bool asked,
                                      const updater::UpdateLog &log);

    // The exec path (exec_update.cpp): rm and sh, tar, runs.
    void update_through_exec(const Target &target, const updater::Request &request, const updater::UpdateLog &log);
    void delete_paths(const Target &target, const std::vector<std::string> &paths, const updater::UpdateLog &log);
    // Deletes and makes room for the archive's entries (path_preparation.hpp); without sh, only rm -rf the deletes.
    void prepare_paths(const Target &target, const updater::Request &request,
                       const std::vector<updaters::PlannedPath> &entries, const updater::UpdateLog &log);
    void copy_files(const Target &target, const updater::Request &request,
                    const std::vector<updaters::PlannedPath> &entries, const updater::UpdateLog &log);
    void copy_with_tar(const Target &target, const updater::Request &request, const updater::UpdateLog &log);
    bool has_tar(const Target &target);
    updater::Outcome run_commands(const Target &target, const std::vector<updater::RunStep> &runs,
                                  const updater::UpdateLog &log);
    // Step i of n through an exec of its own; a run failure, or nothing when it exited 0.
    std::optional<updater::Outcome> run_with_exec(const Target &target, const updater::RunStep &run,
                                                  const updater::UpdateLog &log);

    // Copies without tar in the image, through the archive API (archive_api_copy.cpp).
    void copy_with_archive_api(const Target &target, const updater::Request &request,
                               const std::vector<updaters::PlannedPath> &entries, const updater::UpdateLog &log);
    ContainerPathKind container_path_kind(const Target &target, const std::string &path);
    void verify_copies(const Target &target, const std::vector<updater::CopyMapping> &copies);
    // The owner the `user` setting stands for in the container (none: root, as Docker extracts).
    std::optional<updaters::Owner> owner_in(const Target &target);
    std::string container_file(const Target &target, const std::string &path);

    UpdaterConfig config_;
    // A DOCKER_HOST from the environment that cannot be used fails each update, not the
    // plugin's creation: the host loads this updater whether or not Docker is in use.
    std::string endpoint_error_;
    std::unique_ptr<docker_engine::EngineClient> client_holder_;
    docker_engine::EngineClient &client_;
    // What is probed in a container once, by container ID.
    updaters::UnguardedNotices unguarded_;  // guarded updates taking the exec path, told once per container
    common::Mutex probe_cache_mutex_;
    std::unordered_map<std::string, bool> has_tar_ LU_GUARDED_BY(probe_cache_mutex_);
    std::unordered_set<std::string> without_sh_
        LU_GUARDED_BY(probe_cache_mutex_);  // containers whose exec of sh failed: 126 or 127
    std::unordered_map<std::string, updaters::Owner> owner_ LU_GUARDED_BY(probe_cache_mutex_);

    agent_client::AgentDriver agents_;
};

}  // namespace liveupdate::docker
