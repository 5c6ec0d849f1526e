/* liveupdate C ABI: types shared by every plugin kind.
 *
 * Rules that keep the boundary stable:
 *  - only C types cross it; every struct that may grow starts with struct_size;
 *  - borrowed strings are lu_str (pointer + length, not necessarily NUL-terminated);
 *  - memory a plugin hands out is released by that plugin's own free function;
 *  - function tables are append-only: a newer revision only adds members
 *    at the end, so callers check struct_size before touching a late member;
 *  - each function states, where it is declared, what its out-parameters hold
 *    per result code and from which threads it may be called, with one of
 *    these tags (the only ones the headers use):
 *    [any-thread] concurrently from any thread; [serial] never concurrently
 *    with another call on the same object; [during-call] only from inside the
 *    call that received it, on any thread, until that call returns;
 *  - each member, enum value or extension appended after the first revision
 *    says in which it came: [since 1.N] is revision N of ABI 1 (the list
 *    below); a member without the tag was there from 1.0.
 * Revisions of ABI 1 (LU_ABI_VERSION stays 1: each only appends):
 *    1.0  the tables, the record extension
 *    1.1  lu_host_local_containers.process
 *    1.2  lu_update_request.run_options (lu_run_options)
 *    1.3  the digest extension (liveupdate/ext/digest.h)
 *    1.4  lu_liveupdate_api.get_extension, lu_update_request.log/log_ctx
 *    1.5  the sync targets extension (liveupdate/ext/sync_targets.h)
 *    1.6  lu_sync_targets_extension.container_repaired
 *    1.7  lu_update_request.sync_roots/sync_root_count
 *    1.8  LU_OUTCOME_CONTAINER_NOT_RUNNING
 *    1.9  lu_update_request.archive_rewind (lu_rewind_fn)
 *    1.10 lu_updater_api.prepare
 *    1.11 lu_digest_extension.digest_scoped (lu_digest_scope)
 *    1.12 lu_digest_scope.keep_going/keep_going_ctx
 *    1.13 lu_digest_extension.session_count
 *    1.13 lu_update_outcome.agent_source/process_restarted (lu_agent_source)
 *    1.14 lu_sync_back_extension.watch_from (lu_agreed_file)
 *    1.15 lu_update_request.expected/kept/guard_ctx (the forward guard)
 * Extensions (optional capabilities by versioned id) live in liveupdate/ext/.
 */
#ifndef LIVEUPDATE_ABI_H
#define LIVEUPDATE_ABI_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The ABI version this header describes. A host picks, from the range a
 * plugin advertises (lu_plugin_info), the highest version both serve and asks
 * the plugin's entry symbol for it; the plugin answers with a table for that
 * version or NULL. */
#define LU_ABI_VERSION 1u

#if defined(_WIN32)
#define LU_EXPORT __declspec(dllexport)
#else
#define LU_EXPORT __attribute__((visibility("default")))
#endif

/* A borrowed string: valid for the duration of the call it is passed to. */
typedef struct lu_str {
    const char *data;
    size_t size;
} lu_str;

/* An owned string returned by a plugin; release it with that plugin's free function. */
typedef struct lu_message {
    char *data;
    size_t size;
} lu_message;

typedef enum lu_log_level { LU_LOG_DEBUG = 0, LU_LOG_INFO = 1, LU_LOG_WARN = 2, LU_LOG_ERROR = 3 } lu_log_level;

/* Host callback for log lines; the line is borrowed, without trailing newline.
 * [any-thread] unless the table offering it says otherwise. */
typedef void (*lu_log_fn)(void *host_ctx, int32_t level, lu_str line);

/* Result codes of every ABI function that can fail. What an out-parameter
 * holds for each code is stated next to the function that writes it. */
typedef enum lu_rc {
    LU_OK = 0,
    LU_ERR_INVALID_ARGUMENT = 1, /* input rejected; the message says which field and why */
    LU_ERR_NOT_FOUND = 2,
    LU_ERR_STATE = 3,       /* call not allowed in the current state */
    LU_ERR_UNSUPPORTED = 4, /* e.g. a snapshot of a version this plugin cannot read */
    LU_ERR_INTERNAL = 5
} lu_rc;

/* What a plugin says about itself, whether or not it serves the requested ABI. */
typedef struct lu_plugin_info {
    uint32_t struct_size;
    uint32_t abi_min;    /* lowest ABI revision served */
    uint32_t abi_max;    /* highest ABI revision served */
    const char *kind;    /* "liveupdate" or "updater" */
    const char *name;    /* e.g. "liveupdate", "docker" */
    const char *version; /* the plugin's own version, e.g. "0.1.0" */
} lu_plugin_info;

#ifdef __cplusplus
}
#endif

#endif
