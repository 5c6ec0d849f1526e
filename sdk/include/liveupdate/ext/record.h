/* Updater extension "liveupdate.record/1", for tests and `lu-host replay`
 * only: the record updater (updaters/record) records each update instead of
 * applying it and answers with outcomes queued by the scenario. Not part of
 * what a production updater offers or a production host needs.
 *
 * Found with lu_updater_api.get_extension(updater, LU_RECORD_EXTENSION_ID).
 * The table grows at the end: read a member only when struct_size covers it.
 */
#ifndef LIVEUPDATE_EXT_RECORD_H
#define LIVEUPDATE_EXT_RECORD_H

#include "liveupdate/updater_plugin.h"

#ifdef __cplusplus
extern "C" {
#endif

#define LU_RECORD_EXTENSION_ID "liveupdate.record/1"

typedef struct lu_record_extension {
    uint32_t struct_size;
    /* Queue one outcome ({"ok": true} | {"runFailure": {...}} | {"infraFailure": "..."} | {"containerNotRunning":
     * "..."}) for the next update; with the queue empty, updates succeed. [any-thread] LU_OK: queued, out_error
     * untouched. LU_ERR_INVALID_ARGUMENT: not an outcome; out_error holds error text (release with free_message). */
    int32_t (*push_outcome)(lu_updater *updater, lu_str outcome_json, lu_message *out_error);
    /* Take the calls recorded since the last take, as a JSON array of replay
     * "record" calls. [any-thread]
     * LU_OK: out_calls_json holds the array (release with free_message).
     * LU_ERR_INVALID_ARGUMENT (NULL argument): untouched. LU_ERR_INTERNAL (out
     * of memory): out_calls_json is {NULL, 0}. */
    int32_t (*take_calls)(lu_updater *updater, lu_message *out_calls_json);
} lu_record_extension;

#ifdef __cplusplus
}
#endif

#endif
