/* liveupdate/ext/sync_targets.h compiles as strict C11 and its table starts with struct_size. */
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "liveupdate/ext/sync_targets.h"

_Static_assert(offsetof(lu_sync_targets_extension, struct_size) == 0, "extensions start with struct_size");

static int32_t answer(lu_engine *engine, lu_str live_update, lu_message *out_result) {
    (void)out_result;
    if (engine == NULL) return LU_ERR_INVALID_ARGUMENT;
    return live_update.size == 0 ? LU_ERR_NOT_FOUND : LU_OK;
}

static int32_t repaired(lu_engine *engine, lu_str live_update, lu_str container_id, int32_t *out_cleared) {
    (void)live_update;
    if (engine == NULL) return LU_ERR_INVALID_ARGUMENT;
    if (out_cleared != NULL) *out_cleared = container_id.size > 0;
    return LU_OK;
}

/* container_repaired was appended: a host reads it only when struct_size covers it. */
_Static_assert(offsetof(lu_sync_targets_extension, container_repaired) >
                   offsetof(lu_sync_targets_extension, sync_targets),
               "members are appended");

int main(void) {
    const lu_sync_targets_extension table = {sizeof(lu_sync_targets_extension), answer, repaired};
    const lu_str name = {"lu", 2};
    const int32_t rc = table.sync_targets(NULL, name, NULL);
    const size_t needed = offsetof(lu_sync_targets_extension, container_repaired) + sizeof(table.container_repaired);
    const int32_t repaired_rc = table.struct_size >= needed ? table.container_repaired(NULL, name, name, NULL) : -1;
    printf("%s: %d %d\n", LU_SYNC_TARGETS_EXTENSION_ID, (int)rc, (int)repaired_rc);
    return rc == LU_ERR_INVALID_ARGUMENT && repaired_rc == LU_ERR_INVALID_ARGUMENT &&
                   strcmp(LU_SYNC_TARGETS_EXTENSION_ID, "liveupdate.sync_targets/1") == 0
               ? 0
               : 1;
}
