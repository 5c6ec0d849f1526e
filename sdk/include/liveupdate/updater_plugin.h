/* Updater plugins: apply one container update at a time.
 *
 * An update is: a tar archive (streamed, never whole in memory, and started
 * again from the source when it must be sent twice) to unpack at
 * the container's root, container paths to delete (before unpacking), commands
 * to run in order (stop at the first failure), and a restart when asked.
 * The plugin reports a structured outcome and streams log lines to the host.
 *
 * Threading: update() may be called concurrently from several threads for
 * different containers on one updater instance. Each function below states
 * its own rule. Host extensions (liveupdate/ext/local_containers.h) are found
 * through lu_updater_host.get_extension.
 */
#ifndef LIVEUPDATE_UPDATER_PLUGIN_H
#define LIVEUPDATE_UPDATER_PLUGIN_H

#include "liveupdate/abi.h"

#ifdef __cplusplus
extern "C" {
#endif

#define LU_UPDATER_ENTRY_SYMBOL "lu_updater_plugin_entry"

typedef struct lu_updater lu_updater;

/* What the host offers an updater; read only the members struct_size covers. */
typedef struct lu_updater_host {
    uint32_t struct_size;
    void *ctx;
    /* Log lines not tied to one update (e.g. at create). [any-thread]
     * Lines of an update go to lu_update_request.log when the request has it. */
    lu_log_fn log;
    /* Host capabilities by versioned id (e.g. LU_HOST_LOCAL_CONTAINERS_ID in
     * liveupdate/ext/local_containers.h); NULL if absent. The table returned
     * lives as long as the updater. [any-thread] */
    const void *(*get_extension)(void *ctx, const char *id);
} lu_updater_host;

typedef struct lu_container_ref {
    uint32_t struct_size;
    const char *container_id;
    const char *container_name;
    const char *pod_name;       /* "" outside Kubernetes */
    const char *namespace_name; /* "" outside Kubernetes */
    const char *root;           /* local containers: the folder standing for "/"; else "" */
} lu_container_ref;

/* Reads up to capacity bytes of the archive. Returns the count read, 0 at the
 * end, or -1 on error (the host then knows why; the plugin reports an infra failure).
 * [during-call] of the update() that received it, one read at a time: the
 * plugin may hand the stream to a thread of its own, but no read may start
 * after update() returned. */
typedef int64_t (*lu_read_fn)(void *stream_ctx, void *buffer, size_t capacity);

typedef struct lu_archive_stream {
    void *ctx;
    lu_read_fn read;
} lu_archive_stream;

/* [since 1.9] Starts the archive again from its first byte: the host builds
 * it anew from the copies, so a plugin that must send it again (a broken
 * session) never keeps it. The new archive has the same paths as files are
 * now: a file changed since holds its newer content, one gone or unreadable
 * is reported by the host as for the first pass. Returns 0 when the next read
 * gives the first byte, -1 when it cannot start again (the plugin reports an
 * infra failure). [during-call] as lu_read_fn, never during a read. */
typedef int32_t (*lu_rewind_fn)(void *stream_ctx);

typedef struct lu_path_mapping {
    const char *local_path;
    const char *container_path;
} lu_path_mapping;

typedef struct lu_run_step {
    const char *const *argv;
    size_t argc;
    int32_t echo_off; /* non-zero: do not log the command line */
} lu_run_step;

/* How one run step runs (Compose's exec options); empty strings: the container's default. */
typedef struct lu_run_options {
    uint32_t struct_size;
    const char *user;
    const char *working_dir;
    const char *const *env; /* "KEY=VALUE", added to the container's environment */
    size_t env_count;
    int32_t privileged; /* non-zero: run with extended privileges */
} lu_run_options;

/* [since 1.15] What a forward write of a file that comes back may replace
 * (docs/sync-back.md, "Forward writes over a container change"): the content
 * both sides last agreed on, so that a change the app made in the container
 * and sync back has not judged yet is kept there, not overwritten. */
typedef enum lu_expected_kind {
    LU_EXPECT_ANY = 0,    /* no check: the write or delete replaces whatever is there */
    LU_EXPECT_ABSENT = 1, /* none agreed: nothing may be at the path (a file there is the app's) */
    LU_EXPECT_DIGEST = 2  /* a regular file whose content's XXH3-64 is *out_digest */
} lu_expected_kind;

/* [since 1.15] What may be at container_path (absolute, clean: an archive
 * entry's or a delete's path) before the update replaces or deletes it:
 * returns an lu_expected_kind, and for LU_EXPECT_DIGEST writes *out_digest.
 * [during-call] from any thread, concurrently too. */
typedef int32_t (*lu_expected_fn)(void *guard_ctx, lu_str container_path, uint64_t *out_digest);

/* [since 1.15] The update left container_path as the container holds it (no
 * write, no delete there) because what it found was not what expected()
 * said; why says what it found, for the log. The rest of the update goes on.
 * [during-call] from any thread, concurrently too. */
typedef void (*lu_kept_fn)(void *guard_ctx, lu_str container_path, lu_str why);

/* One update; everything it points to is borrowed for the update() call. */
typedef struct lu_update_request {
    uint32_t struct_size;
    const char *live_update; /* the LiveUpdate's name, for logs */
    const char *via;         /* updater class: "docker", "kubernetes", "local", ... */
    const lu_container_ref *container;
    /* What the archive carries, for logs and verification; entries are relative to "/". */
    const lu_path_mapping *copies;
    size_t copy_count;
    lu_archive_stream archive;
    const char *const *delete_paths;
    size_t delete_count;
    const lu_run_step *runs;
    size_t run_count;
    int32_t restart;      /* non-zero: restart the container after the update */
    int32_t initial_sync; /* non-zero: the container's first, full sync */
    /* [since 1.2] NULL, or run_count entries, the options of each run step. */
    const lu_run_options *run_options;
    /* [since 1.4] This update's log lines (e.g. "[CMD 1/2] make" and command
     * output), which reach live_update's log: log(log_ctx, level, line).
     * [during-call] from any thread, concurrently too, until update() returns.
     * NULL from an older host: use lu_updater_host.log then. */
    lu_log_fn log;
    void *log_ctx;
    /* [since 1.7] The container paths of the LiveUpdate's syncs. A path the
     * update writes or deletes resolves through symlinks down to the longest
     * of these that holds it (as `tar -C` follows its folder), never below it:
     * a symlink there is replaced by the folder the archive needs, and a
     * delete beneath one is already done. A path outside them all (NULL from
     * an older host) is followed down to itself. */
    const char *const *sync_roots;
    size_t sync_root_count;
    /* [since 1.9] archive_rewind(archive.ctx) restarts the archive
     * (lu_rewind_fn). NULL from an older host: a plugin that may need
     * the archive twice keeps what it read in a temporary file, never whole
     * in memory. */
    lu_rewind_fn archive_rewind;
    /* [since 1.15] The forward guard: NULL from an older host and when
     * nothing the update carries comes back. A plugin that can compare before
     * it replaces (lu-agent of protocol 8, the local updater) asks expected()
     * for each file it writes and each path it deletes, leaves a path whose
     * content is not the expected one as it is and calls kept() for it; one
     * that cannot (no agent, an older agent) writes as before and says once
     * in the update's log that its forward writes are unguarded. */
    lu_expected_fn expected;
    lu_kept_fn kept;
    void *guard_ctx;
} lu_update_request;

typedef enum lu_outcome_kind {
    LU_OUTCOME_OK = 0,
    LU_OUTCOME_RUN_FAILURE = 1,   /* a command exited non-zero: the user's to fix */
    LU_OUTCOME_INFRA_FAILURE = 2, /* copying or the runtime failed */
    /* [since 1.8] The container is not running (e.g. paused) and nothing was
     * changed in it: the update is due again once it runs. An older host takes
     * it for an infra failure. */
    LU_OUTCOME_CONTAINER_NOT_RUNNING = 3
} lu_outcome_kind;

/* [since 1.13] How the update reached into the container (lu_update_outcome.agent_source). */
typedef enum lu_agent_source {
    LU_AGENT_SOURCE_UNKNOWN = 0,  /* not said: an updater without lu-agent, or older than the member */
    LU_AGENT_SOURCE_NONE = 1,     /* without lu-agent: the updater's exec path */
    LU_AGENT_SOURCE_INJECTED = 2, /* the lu-agent the container was started with (injected at admission) */
    LU_AGENT_SOURCE_COPIED = 3    /* this host's lu-agent, copied into the container */
} lu_agent_source;

typedef struct lu_update_outcome {
    uint32_t struct_size;
    int32_t kind;       /* lu_outcome_kind */
    int32_t exit_code;  /* for LU_OUTCOME_RUN_FAILURE */
    lu_message message; /* owned by the caller once written; release with free_message */
    /* [since 1.13] Written only where the host's struct_size covers them; an
     * older plugin leaves them as the host set them (zero: unknown, no restart). */
    int32_t agent_source;      /* lu_agent_source */
    int32_t process_restarted; /* non-zero: this update restarted the container's process
                                  (in place under lu-agent supervise, or with its container) */
} lu_update_outcome;

typedef struct lu_updater_api {
    uint32_t struct_size;
    uint32_t abi_version;

    /* config_json: the updater's settings object ("{}" when none); host is
     * copied (the members its struct_size covers). [serial] with destroy.
     * LU_OK: *out_updater set, out_error untouched.
     * LU_ERR_INVALID_ARGUMENT (bad settings), LU_ERR_INTERNAL: *out_updater
     * NULL, out_error holds error text, owned by the caller (free_message). */
    int32_t (*create)(const lu_updater_host *host, lu_str config_json, lu_updater **out_updater, lu_message *out_error);
    /* [serial] no update() may be running. */
    void (*destroy)(lu_updater *updater);

    /* [any-thread] concurrently for different containers.
     * LU_OK: an outcome was written (whatever its kind); its message, possibly
     * {NULL, 0}, is the caller's to release.
     * LU_ERR_INVALID_ARGUMENT (a NULL argument or container): *out_outcome untouched. */
    int32_t (*update)(lu_updater *updater, const lu_update_request *request, lu_update_outcome *out_outcome);

    /* Releases a message this plugin wrote; {NULL, 0} is fine. [any-thread] */
    void (*free_message)(lu_message *message);

    /* Optional capabilities by versioned id (see liveupdate/ext/); NULL if
     * absent. The table returned lives as long as the updater. [any-thread] */
    const void *(*get_extension)(lu_updater *updater, const char *id);

    /* [since 1.10] Read only when struct_size covers it; NULL from older
     * plugins and from plugins with nothing to prepare.
     * Makes the container ready for a first update that is as fast as the
     * next ones (the docker updater starts lu-agent in it). The host calls it
     * off the reconcile path when a LiveUpdate first selects the container,
     * never waits on it, and only logs a failure: update() must still work on
     * a container that was never prepared, or whose preparation failed.
     * [any-thread] concurrently with update() for the same container too.
     * LU_OK: out_error untouched. Any other code: out_error holds error text
     * (the caller releases it with free_message). */
    int32_t (*prepare)(lu_updater *updater, const lu_container_ref *container, lu_message *out_error);
} lu_updater_api;

/* The one exported symbol; as lu_liveupdate_entry_fn. [any-thread] */
typedef const lu_updater_api *(*lu_updater_entry_fn)(uint32_t abi_version, const lu_plugin_info **out_info);

#ifdef __cplusplus
}
#endif

#endif
