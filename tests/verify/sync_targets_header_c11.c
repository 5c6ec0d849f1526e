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

int main(void) {
    const lu_sync_targets_extension table = {sizeof(lu_sync_targets_extension), answer};
    const lu_str name = {"lu", 2};
    const int32_t rc = table.sync_targets(NULL, name, NULL);
    printf("%s: %d\n", LU_SYNC_TARGETS_EXTENSION_ID, (int)rc);
    return rc == LU_ERR_INVALID_ARGUMENT && strcmp(LU_SYNC_TARGETS_EXTENSION_ID, "liveupdate.sync_targets/1") == 0 ? 0
                                                                                                                   : 1;
}
