/* The liveupdate plugin: admission and reconciliation of Tilt LiveUpdate objects.
 *
 * The plugin is a state machine the host drives. Objects go in as
 * tilt.dev/v1alpha1 JSON; a reconcile is a sequence of steps: the plugin
 * asks for container updates or says it is done. The host executes each
 * update through an updater plugin and reports the outcome. The plugin
 * reads no clock (time is passed in) and does no I/O except reading the local
 * filesystem (stat, walking sync directories).
 *
 * Threading: one engine may be called from several threads; reconciles of
 * different LiveUpdates may run concurrently, one LiveUpdate at a time. Each
 * function below states its own rule.
 *
 * JSON documents exchanged (all times RFC 3339 UTC, six fractional digits):
 *
 *  create options: {"startTime": TIME,      (Tilt's reconciler start time)
 *                   "maxStepVersion": N}    (the newest step version the host reads;
 *                                            absent: 1, from hosts older than the field)
 *
 *  validate / upsert result:
 *    {"accepted": bool, "kind": K, "name": N,
 *     "errors": [{"field": "spec.syncs[0].containerPath", "message": "..."}],
 *     "message": "all errors joined, for humans",
 *     "due": [LiveUpdate names to reconcile because of this change]}
 *  remove result: {"due": [names]}
 *
 *  step (reconcile_begin / reconcile_continue output; a host refuses one with
 *  a member missing or of another type, or an unknown type, level or event,
 *  naming its path):
 *    {"stepVersion": 1 | 2,             the shape of this document: the lower of
 *                                       LU_STEP_VERSION and the host's maxStepVersion;
 *                                       a host refuses a version it does not know
 *                                       (absent: 1, from plugins older than the field)
 *     "type": "update" (version 1) | "updates" (version 2) | "done",
 *     "log":    [{"level": "info"|"warn"|"error"|"debug", "text": "..."}],
 *     "events": [{"type": "started", "liveUpdate": N, "manifest": M, "filesChanged": [paths]},
 *                {"type": "completed", "liveUpdate": N, "manifest": M, "error": ""}],
 *     -- type "update":
 *     "update": {"liveUpdate": N, "via": "docker"|"kubernetes"|"local",
 *                "container": {"containerID", "containerName", "podName", "namespace",
 *                              "root" (LocalContainer spec.root, local only)},
 *                "copy":   [{"local": ABS, "container": ABS}],   sorted by container path
 *                "delete": [ABS container paths],                sorted
 *                "runs":   [{"args": [...], "echoOff": bool,
 *                            "user": U, "workingDir": ABS,        each only when set
 *                            "env": ["KEY=VALUE"], "privileged": true}],   (Compose's exec)
 *                "restart": bool, "initialSync": bool,
 *                "filter": [{"basePath": ABS, "patterns": [dockerignore patterns]}],
 *                "syncRoots": [ABS container paths of the LiveUpdate's syncs]},
 *                every member is required but "root", "syncRoots" and the runs'
 *                options: a host refuses a step whose update lacks one, or has one
 *                of another type, naming its path; members it does not know are skipped.
 *     -- type "updates" (version 2): every container's update of one change,
 *        in container order; the host may run them concurrently:
 *     "updates": [{"log": [lines written before this update], "update": UPDATE}],
 *     "stopsAtInfraFailure": bool  (since this field: the fold ends at an
 *                                   infraFailure; false where a failure holds
 *                                   its container alone, a Compose replica's;
 *                                   absent: true),
 *     -- type "done":
 *     "status": LiveUpdateStatus JSON or null (LiveUpdate absent),
 *     "statusChanged": bool,
 *     "results": [{"log": [...]}]        (after "updates" only: the lines the
 *                                         outcome of each update folded wrote)}
 *
 *  outcome (reconcile_continue input after "update"), one of:
 *    {"ok": true}
 *    {"runFailure": {"message": "...", "exitCode": N}}
 *    {"infraFailure": "message"}
 *    {"containerNotRunning": "message"}  (nothing changed: sent again once it runs)
 *  each with, when the updater said them (since 1.13), "agent": "none" |
 *  "injected" | "copied" (how it reached into the container: without lu-agent,
 *  the one injected at admission, or one copied in) and "processRestarted": true
 *  (the update restarted the container's process); the plugin keeps them per
 *  container for its status ("agent", "lastRestartTime" of each container)
 *  outcomes (reconcile_continue input after "updates"):
 *    {"outcomes": [OUTCOME, ...]}        one per update, in the step's order; with
 *                                        stopsAtInfraFailure the list may end at an
 *                                        infraFailure (a host running them one by
 *                                        one stops there)
 *
 *  Version 2 keeps version 1's semantics: the plugin folds the outcomes in
 *  container order exactly as it folds sequential ones, stopping at the first
 *  infrastructure failure when stopsAtInfraFailure (the outcomes after it are
 *  not folded: those containers get the change again once the failure clears). A host prints the
 *  lines in the sequential order: the step's "log", then for each update it ran
 *  its "log", that update's own lines (updater output), its "results" entry's
 *  lines, and last the done step's "log". A plugin serving a version 1 host
 *  (no maxStepVersion) hands out "update" steps only.
 */
#ifndef LIVEUPDATE_LIVEUPDATE_PLUGIN_H
#define LIVEUPDATE_LIVEUPDATE_PLUGIN_H

#include "liveupdate/abi.h"

#ifdef __cplusplus
extern "C" {
#endif

#define LU_LIVEUPDATE_ENTRY_SYMBOL "lu_liveupdate_plugin_entry"

/* The newest version of the step documents this header describes
 * ("stepVersion"). A new version changes their shape; adding optional members
 * does not. A host reads every version from 1 to the one it was built with. */
#define LU_STEP_VERSION 2

typedef struct lu_engine lu_engine;       /* all objects and tracked state */
typedef struct lu_reconcile lu_reconcile; /* one reconcile in progress */

/* Host services offered to the engine. The plugin copies the first
 * min(struct_size, its own sizeof) bytes at create: an older host's shorter
 * table leaves the later members NULL. */
typedef struct lu_engine_host {
    uint32_t struct_size;
    void *ctx;
    lu_log_fn log; /* diagnostics of the plugin itself (not LiveUpdate logs); [any-thread] */
} lu_engine_host;

/* Out-parameters: every lu_message written is owned by the caller, who
 * releases it with free_message; one left untouched stays as the caller set it
 * ({NULL, 0} is the caller's usual choice). "Error text" is a message for
 * humans saying what failed and why; it is never parsed. */
typedef struct lu_liveupdate_api {
    uint32_t struct_size;
    uint32_t abi_version;

    /* [serial] with every other create/destroy of the plugin. May be called
     * again after every engine was destroyed (hot reload); host is copied.
     * LU_OK: *out_engine set, out_error untouched.
     * LU_ERR_INVALID_ARGUMENT (bad options), LU_ERR_INTERNAL: *out_engine NULL,
     * out_error holds error text. */
    int32_t (*create)(const lu_engine_host *host, lu_str options_json, lu_engine **out_engine, lu_message *out_error);
    /* [serial] no other call on the engine may be running, no session open. */
    void (*destroy)(lu_engine *engine);

    /* Admission only: nothing is stored. [any-thread]
     * LU_OK: out_result is an admission document with "accepted": true.
     * LU_ERR_INVALID_ARGUMENT: out_result is an admission document with
     *   "accepted": false (malformed JSON included); the object is rejected.
     * LU_ERR_STATE, LU_ERR_INTERNAL: out_result holds error text; the
     *   object was neither admitted nor rejected. */
    int32_t (*validate)(lu_engine *engine, lu_str object_json, lu_message *out_result);
    /* Create or replace an object; LiveUpdates pass admission first. [any-thread]
     * Result codes and out_result as for validate; on LU_OK the object is
     * stored and "due" names the LiveUpdates to reconcile. */
    int32_t (*upsert)(lu_engine *engine, lu_str object_json, lu_message *out_result);
    /* [any-thread] LU_OK: out_result is the remove result document.
     * Any other code: out_result holds error text, nothing was removed. */
    int32_t (*remove)(lu_engine *engine, lu_str kind, lu_str name, lu_message *out_result);

    /* Start reconciling a LiveUpdate at time now; the first step is written to out_step.
     * The session stays open until a "done" step, then the host calls reconcile_end.
     * [any-thread] for different LiveUpdates; a LiveUpdate with an open session is refused.
     * LU_OK: *out_session set, out_step is a step document.
     * LU_ERR_STATE (that LiveUpdate is being reconciled), LU_ERR_INVALID_ARGUMENT
     * (now is not a time), LU_ERR_INTERNAL: *out_session NULL, out_step holds error text. */
    int32_t (*reconcile_begin)(lu_engine *engine, lu_str live_update_name, lu_str now, lu_reconcile **out_session,
                               lu_message *out_step);
    /* Report the outcome of the last "update" step (the outcomes of the last
     * "updates" step); the next step is written to out_step.
     * [serial] per session (any thread, one call at a time).
     * LU_OK: out_step is a step document.
     * LU_ERR_STATE (no update awaits an outcome), LU_ERR_INVALID_ARGUMENT (bad
     * outcome or time), LU_ERR_INTERNAL: out_step holds error text; the
     * session stays open and must still be ended. */
    int32_t (*reconcile_continue)(lu_reconcile *session, lu_str outcome_json, lu_str now, lu_message *out_step);
    /* Ends a session; ending one before "done" abandons its remaining updates
     * (as if an infrastructure failure had occurred) and keeps the state consistent.
     * [serial] per session, last call on it. */
    void (*reconcile_end)(lu_reconcile *session);

    /* Opaque, versioned state for hot reload. [any-thread] but refused while
     * any session is open: snapshot and restore never run during a reconcile.
     * snapshot LU_OK: out_blob is the state. LU_ERR_STATE (a session is open),
     * LU_ERR_INTERNAL: out_blob holds error text.
     * restore LU_OK: out_error untouched. LU_ERR_UNSUPPORTED (a snapshot version
     * this plugin cannot read), LU_ERR_INVALID_ARGUMENT (a malformed blob),
     * LU_ERR_STATE (a session is open), LU_ERR_INTERNAL: out_error holds error
     * text and the engine keeps its previous state. */
    int32_t (*snapshot)(lu_engine *engine, lu_message *out_blob);
    int32_t (*restore)(lu_engine *engine, lu_str blob, lu_message *out_error);

    /* Releases a message this plugin wrote; {NULL, 0} is fine. [any-thread] */
    void (*free_message)(lu_message *message);

    /* [since 1.4] Optional capabilities of the engine by versioned id (see
     * liveupdate/ext/); NULL if absent. The table returned lives as long as
     * the engine. [any-thread] */
    const void *(*get_extension)(lu_engine *engine, const char *id);
} lu_liveupdate_api;

/* The one exported symbol. Returns the table for abi_version, or NULL when the
 * plugin does not serve it; *out_info is always set. [any-thread] */
typedef const lu_liveupdate_api *(*lu_liveupdate_entry_fn)(uint32_t abi_version, const lu_plugin_info **out_info);

#ifdef __cplusplus
}
#endif

#endif
