/* liveupdate/ext/sync_back.h compiles as strict C11 and its structs start with struct_size. */
#include <stddef.h>
#include <stdio.h>

#include "liveupdate/ext/sync_back.h"

_Static_assert(offsetof(lu_sync_back_extension, struct_size) == 0, "extensions start with struct_size");
_Static_assert(offsetof(lu_container_change, struct_size) == 0, "changes start with struct_size");
_Static_assert(offsetof(lu_container_changes, struct_size) == 0, "batches start with struct_size");
_Static_assert(LU_CHANGE_WRITTEN == 1 && LU_CHANGE_DELETED == 2 && LU_CHANGE_SYMLINK == 3 && LU_CHANGE_OTHER == 4 &&
                   LU_CHANGE_RESCAN == 5,
               "the agent's change kinds");

static void count_changes(void *ctx, const lu_container_changes *changes) { *(int *)ctx += (int)changes->count; }

int main(void) {
    const lu_container_change change = {
        sizeof(lu_container_change), {"a", 1}, LU_CHANGE_WRITTEN, 0644, 1, 42, 1, {"x", 1}, {"", 0}};
    const lu_container_changes batch = {sizeof(lu_container_changes), &change, 1, LU_ROOT_HOLDS, 0, {"", 0}};
    int seen = 0;
    const lu_container_changes_fn each = count_changes;
    each(&seen, &batch);
    printf("%s: %d change\n", LU_SYNC_BACK_EXTENSION_ID, seen);
    return seen == 1 ? 0 : 1;
}
