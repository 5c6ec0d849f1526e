/* The liveupdate plugin: admission and reconciliation of Tilt LiveUpdate objects.
 *
 * The plugin is a state machine the host drives. Objects go in as
 * tilt.dev/v1alpha1 JSON; a reconcile is a sequence of steps: the plugin
 * either asks for one container update or says it is done. The host executes
 * each update through an updater plugin and reports the outcome. The plugin
 * reads no clock (time is passed in) and does no I/O except reading the local
 * filesystem (stat, walking sync directories).
 *
 * Threading: one engine may be called from several threads; reconciles of
 * different LiveUpdates may run concurrently, one LiveUpdate at a time.
 *
 * JSON documents exchanged (all times RFC 3339 UTC, six fractional digits):
 *
 *  create options: {"startTime": TIME}       (Tilt's reconciler start time)
 *
 *  validate / upsert result:
 *    {"accepted": bool, "kind": K, "name": N,
 *     "errors": [{"field": "spec.syncs[0].containerPath", "message": "..."}],
 *     "message": "all errors joined, for humans",
 *     "due": [LiveUpdate names to reconcile because of this change]}
 *  remove result: {"due": [names]}
 *
 *  step (reconcile_begin / reconcile_continue output):
 *    {"type": "update" | "done",
 *     "log":    [{"level": "info"|"warn"|"error"|"debug", "text": "..."}],
 *     "events": [{"type": "started", "liveUpdate": N, "manifest": M, "filesChanged": [paths]},
 *                {"type": "completed", "liveUpdate": N, "manifest": M, "error": ""}],
 *     -- type "update":
 *     "update": {"liveUpdate": N, "via": "docker"|"kubernetes"|"local",
 *                "container": {"containerID", "containerName", "podName", "namespace",
 *                              "root" (LocalContainer spec.root, local only)},
 *                "copy":   [{"local": ABS, "container": ABS}],   sorted by container path
 *                "delete": [ABS container paths],                sorted
 *                "runs":   [{"args": [...], "echoOff": bool}],
 *                "restart": bool, "initialSync": bool,
 *                "filter": [{"basePath": ABS, "patterns": [dockerignore patterns]}]},
 *     -- type "done":
 *     "status": LiveUpdateStatus JSON or null (LiveUpdate absent),
 *     "statusChanged": bool}
 *
 *  outcome (reconcile_continue input), one of:
 *    {"ok": true}
 *    {"runFailure": {"message": "...", "exitCode": N}}
 *    {"infraFailure": "message"}
 */
#ifndef LIVEUPDATE_LIVEUPDATE_PLUGIN_H
#define LIVEUPDATE_LIVEUPDATE_PLUGIN_H

#include "liveupdate/abi.h"

#ifdef __cplusplus
extern "C" {
#endif

#define LU_LIVEUPDATE_ENTRY_SYMBOL "lu_liveupdate_plugin_entry"

typedef struct lu_engine lu_engine;       /* all objects and tracked state */
typedef struct lu_reconcile lu_reconcile; /* one reconcile in progress */

/* Host services offered to the engine. */
typedef struct lu_engine_host {
    uint32_t struct_size;
    void *ctx;
    lu_log_fn log; /* diagnostics of the plugin itself (not LiveUpdate logs) */
} lu_engine_host;

typedef struct lu_liveupdate_api {
    uint32_t struct_size;
    uint32_t abi_version;

    /* May be called again after every engine was destroyed (hot reload). */
    int32_t (*create)(const lu_engine_host *host, lu_str options_json,
                      lu_engine **out_engine, lu_message *out_error);
    void (*destroy)(lu_engine *engine);

    /* Admission only: nothing is stored. */
    int32_t (*validate)(lu_engine *engine, lu_str object_json, lu_message *out_result);
    /* Create or replace an object; LiveUpdates pass admission first. */
    int32_t (*upsert)(lu_engine *engine, lu_str object_json, lu_message *out_result);
    int32_t (*remove)(lu_engine *engine, lu_str kind, lu_str name, lu_message *out_result);

    /* Start reconciling a LiveUpdate at time now; the first step is written to out_step.
     * The session stays open until a "done" step, then the host calls reconcile_end. */
    int32_t (*reconcile_begin)(lu_engine *engine, lu_str live_update_name, lu_str now,
                               lu_reconcile **out_session, lu_message *out_step);
    /* Report the outcome of the last "update" step; the next step is written to out_step. */
    int32_t (*reconcile_continue)(lu_reconcile *session, lu_str outcome_json, lu_str now,
                                  lu_message *out_step);
    /* Ends a session; ending one before "done" abandons its remaining updates
     * (as if an infrastructure failure had occurred) and keeps the state consistent. */
    void (*reconcile_end)(lu_reconcile *session);

    /* Opaque, versioned state for hot reload. restore refuses unknown versions. */
    int32_t (*snapshot)(lu_engine *engine, lu_message *out_blob);
    int32_t (*restore)(lu_engine *engine, lu_str blob, lu_message *out_error);

    void (*free_message)(lu_message *message);
} lu_liveupdate_api;

/* The one exported symbol. Returns the table for abi_version, or NULL when the
 * plugin does not serve it; *out_info is always set. */
typedef const lu_liveupdate_api *(*lu_liveupdate_entry_fn)(uint32_t abi_version,
                                                           const lu_plugin_info **out_info);

#ifdef __cplusplus
}
#endif

#endif
