/* Updater plugins: apply one container update at a time.
 *
 * An update is: a tar archive (streamed, never whole in memory) to unpack at
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

typedef struct lu_update_outcome {
    uint32_t struct_size;
    int32_t kind;       /* lu_outcome_kind */
    int32_t exit_code;  /* for LU_OUTCOME_RUN_FAILURE */
    lu_message message; /* owned by the caller once written; release with free_message */
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
} lu_updater_api;

/* The one exported symbol; as lu_liveupdate_entry_fn. [any-thread] */
typedef const lu_updater_api *(*lu_updater_entry_fn)(uint32_t abi_version, const lu_plugin_info **out_info);

#ifdef __cplusplus
}
#endif

#endif
