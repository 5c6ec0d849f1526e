/* Updater plugins: apply one container update at a time.
 *
 * An update is: a tar archive (streamed, never whole in memory) to unpack at
 * the container's root, container paths to delete (before unpacking), commands
 * to run in order (stop at the first failure), and a restart when asked.
 * The plugin reports a structured outcome and streams log lines to the host.
 *
 * Threading: update() may be called concurrently from several threads for
 * different containers on one updater instance.
 */
#ifndef LIVEUPDATE_UPDATER_PLUGIN_H
#define LIVEUPDATE_UPDATER_PLUGIN_H

#include "liveupdate/abi.h"

#ifdef __cplusplus
extern "C" {
#endif

#define LU_UPDATER_ENTRY_SYMBOL "lu_updater_plugin_entry"

typedef struct lu_updater lu_updater;

typedef struct lu_updater_host {
    uint32_t struct_size;
    void *ctx;
    lu_log_fn log; /* log lines of updates, e.g. "[CMD 1/2] make" and command output */
    /* Host capabilities by versioned id (e.g. LU_HOST_LOCAL_CONTAINERS_ID); NULL if absent. */
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
 * end, or -1 on error (the host then knows why; the plugin reports an infra failure). */
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

typedef struct lu_update_request {
    uint32_t struct_size;
    const char *live_update;  /* the LiveUpdate's name, for logs */
    const char *via;          /* updater class: "docker", "kubernetes", "local", ... */
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
    /* Appended: NULL, or run_count entries, the options of each run step. */
    const lu_run_options *run_options;
} lu_update_request;

typedef enum lu_outcome_kind {
    LU_OUTCOME_OK = 0,
    LU_OUTCOME_RUN_FAILURE = 1,   /* a command exited non-zero: the user's to fix */
    LU_OUTCOME_INFRA_FAILURE = 2  /* copying or the runtime failed */
} lu_outcome_kind;

typedef struct lu_update_outcome {
    uint32_t struct_size;
    int32_t kind;       /* lu_outcome_kind */
    int32_t exit_code;  /* for LU_OUTCOME_RUN_FAILURE */
    lu_message message; /* owned by the plugin; release with free_message */
} lu_update_outcome;

typedef struct lu_updater_api {
    uint32_t struct_size;
    uint32_t abi_version;

    /* config_json: the updater's settings object ("{}" when none). */
    int32_t (*create)(const lu_updater_host *host, lu_str config_json,
                      lu_updater **out_updater, lu_message *out_error);
    void (*destroy)(lu_updater *updater);

    /* Returns LU_OK when an outcome was written (whatever its kind). */
    int32_t (*update)(lu_updater *updater, const lu_update_request *request,
                      lu_update_outcome *out_outcome);

    void (*free_message)(lu_message *message);

    /* Optional capabilities by versioned id ("liveupdate.record/1", ...); NULL if absent. */
    const void *(*get_extension)(lu_updater *updater, const char *id);
} lu_updater_api;

typedef const lu_updater_api *(*lu_updater_entry_fn)(uint32_t abi_version,
                                                     const lu_plugin_info **out_info);

/* Host extension for the local updater: the host supervises LocalContainer processes. */
#define LU_HOST_LOCAL_CONTAINERS_ID "liveupdate.host.local-containers/1"

typedef struct lu_host_local_containers {
    uint32_t struct_size;
    /* Restart the container's process; on failure returns non-zero and writes a
     * NUL-terminated reason into error (at most error_capacity bytes). */
    int32_t (*restart)(void *host_ctx, const lu_container_ref *container, char *error,
                       size_t error_capacity);
    /* Appended: read only when struct_size covers it. The container's process
     * settings, which commands run in it take as `docker exec` takes a
     * container's: each_env(each_ctx, name, value) once per variable the
     * container adds to the host's environment, and its working directory (a
     * container path, NUL-terminated, at most working_dir_capacity bytes).
     * Returns non-zero when the host does not know the container. */
    int32_t (*process)(void *host_ctx, const lu_container_ref *container,
                       void (*each_env)(void *each_ctx, const char *name, const char *value), void *each_ctx,
                       char *working_dir, size_t working_dir_capacity);
} lu_host_local_containers;

/* Extension of the record updater used by `lu-host replay`. */
#define LU_RECORD_EXTENSION_ID "liveupdate.record/1"

typedef struct lu_record_extension {
    uint32_t struct_size;
    /* Queue one outcome ({"ok": true} | {"runFailure": {...}} | {"infraFailure": "..."})
     * for the next update; with the queue empty, updates succeed. */
    int32_t (*push_outcome)(lu_updater *updater, lu_str outcome_json, lu_message *out_error);
    /* Take the calls recorded since the last take, as a JSON array of replay "record" calls. */
    int32_t (*take_calls)(lu_updater *updater, lu_message *out_calls_json);
} lu_record_extension;

#ifdef __cplusplus
}
#endif

#endif
