/* liveupdate/ext/digest.h compiles as strict C11 and its structs start with struct_size. */
#include <stddef.h>
#include <stdio.h>

#include "liveupdate/ext/digest.h"

_Static_assert(offsetof(lu_digest_extension, struct_size) == 0, "extensions start with struct_size");
_Static_assert(offsetof(lu_digest_entry, struct_size) == 0, "entries start with struct_size");
_Static_assert(LU_DIGEST_FILE == 1 && LU_DIGEST_DIR == 2 && LU_DIGEST_SYMLINK == 3 && LU_DIGEST_OTHER == 4,
               "the agent's entry types");

static int32_t count_entry(void *ctx, const lu_digest_entry *entry) {
    (void)entry;
    ++*(int *)ctx;
    return 0;
}

int main(void) {
    const lu_digest_entry entry = {sizeof(lu_digest_entry), {"a", 1}, LU_DIGEST_FILE, 0644, 1, 42};
    int seen = 0;
    const lu_digest_entry_fn each = count_entry;
    each(&seen, &entry);
    printf("%s: %d entry\n", LU_DIGEST_EXTENSION_ID, seen);
    return seen == 1 ? 0 : 1;
}
