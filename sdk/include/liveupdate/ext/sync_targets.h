/* Liveupdate-plugin extension "liveupdate.sync_targets/1" [since 1.5]: where a
 * LiveUpdate's content lives, by the plugin's own rules (its selector, its
 * sync rules, its sources' ignores), for a host that compares containers with
 * the local trees (`lu-host verify`) without knowing those rules.
 *
 * Rules of this extension:
 *  - asked for with lu_liveupdate_api.get_extension(engine, LU_SYNC_TARGETS_EXTENSION_ID);
 *    NULL: the plugin cannot tell;
 *  - the table only grows: check struct_size before reading a member;
 *  - the answer is JSON text (or error text) in a message the host releases
 *    with lu_liveupdate_api.free_message.
 *
 * The targets document (paths absolute):
 *   {"via": "docker"|"kubernetes"|"local",      the updater class
 *    "containers": [{"containerID", "containerName", "podName", "namespace",
 *                    "root",                   LocalContainer spec.root ("" elsewhere)
 *                    "display"}],              the name to show people
 *    "targets": [{"local": ABS, "container": ABS}],   each sync rule as a whole
 *    "filter":  [{"basePath": ABS, "patterns": [dockerignore patterns]}]}
 *                                              the sources' ignores and the built-in ones
 * "containers" lists only the running ones the selector picks now.
 *
 * container_repaired ([since 1.6]; read it only when struct_size covers it):
 * the host brought a container to the sources (`lu-host verify --fix`
 * verified it equal afterwards), so a failure its last update left behind
 * ("UpdateFailed": the LiveUpdate's status stays Failed and changes to that
 * container are skipped) no longer holds. The plugin clears it; the host then
 * reconciles the LiveUpdate, whose status drops the failure and whose
 * pending changes are sent again. A plan that could not be made
 * ("UpdateStopped": a stop path, an unmapped file) is not cleared: a rebuild
 * or its cause going away clears that.
 */
#ifndef LIVEUPDATE_EXT_SYNC_TARGETS_H
#define LIVEUPDATE_EXT_SYNC_TARGETS_H

#include "liveupdate/abi.h"
#include "liveupdate/liveupdate_plugin.h"

#ifdef __cplusplus
extern "C" {
#endif

#define LU_SYNC_TARGETS_EXTENSION_ID "liveupdate.sync_targets/1"

typedef struct lu_sync_targets_extension {
    uint32_t struct_size;

    /* The targets of the LiveUpdate named live_update, from the objects the
     * engine holds now. [any-thread], concurrently with every other call of
     * the engine but destroy.
     * Returns, and leaves in *out_result (untouched when out_result is NULL):
     *  LU_OK                    the targets document;
     *  LU_ERR_NOT_FOUND         the engine holds no LiveUpdate of that name;
     *                           error text;
     *  LU_ERR_STATE             the LiveUpdate has no targets now (a selector
     *                           that cannot be reconciled, an object it names
     *                           is absent, nothing to select from); error text
     *                           saying why, for the user;
     *  LU_ERR_INVALID_ARGUMENT  a NULL engine; *out_result untouched;
     *  LU_ERR_INTERNAL          error text. */
    int32_t (*sync_targets)(lu_engine *engine, lu_str live_update, lu_message *out_result);

    /* [since 1.6] The host repaired container_id (lu_container_ref.container_id) of
     * live_update: see above. [any-thread], concurrently with every other
     * call of the engine but destroy; refused while that LiveUpdate is being
     * reconciled. *out_cleared (when not NULL): 1 when a failure was cleared
     * (reconcile the LiveUpdate next), else 0.
     * Returns:
     *  LU_OK                    done (cleared, or nothing to clear);
     *  LU_ERR_NOT_FOUND         the engine holds no LiveUpdate of that name;
     *  LU_ERR_STATE             that LiveUpdate is being reconciled: ask again after;
     *  LU_ERR_INVALID_ARGUMENT  a NULL engine;
     *  LU_ERR_INTERNAL          unexpected. */
    int32_t (*container_repaired)(lu_engine *engine, lu_str live_update, lu_str container_id, int32_t *out_cleared);
} lu_sync_targets_extension;

#ifdef __cplusplus
}
#endif

#endif
