/* The ABI headers compile as strict C11 (-std=c11 -Wall -Wextra -Werror -pedantic)
 * and their structs start with what the ABI promises. */
#include <stddef.h>
#include <stdio.h>

#include "liveupdate/abi.h"
#include "liveupdate/ext/local_containers.h"
#include "liveupdate/ext/record.h"
#include "liveupdate/liveupdate_plugin.h"
#include "liveupdate/updater_plugin.h"

_Static_assert(offsetof(lu_liveupdate_api, struct_size) == 0, "tables start with struct_size");
_Static_assert(offsetof(lu_updater_api, struct_size) == 0, "tables start with struct_size");
_Static_assert(offsetof(lu_plugin_info, struct_size) == 0, "info starts with struct_size");
_Static_assert(offsetof(lu_update_request, struct_size) == 0, "requests start with struct_size");
_Static_assert(offsetof(lu_update_outcome, struct_size) == 0, "outcomes start with struct_size");
_Static_assert(offsetof(lu_container_ref, struct_size) == 0, "refs start with struct_size");
_Static_assert(offsetof(lu_engine_host, struct_size) == 0, "hosts start with struct_size");
_Static_assert(offsetof(lu_updater_host, struct_size) == 0, "hosts start with struct_size");
_Static_assert(offsetof(lu_record_extension, struct_size) == 0, "extensions start with struct_size");
_Static_assert(offsetof(lu_host_local_containers, struct_size) == 0, "extensions start with struct_size");

int main(void) {
    const lu_liveupdate_entry_fn liveupdate_entry = NULL;
    const lu_updater_entry_fn updater_entry = NULL;
    lu_str s = {LU_LIVEUPDATE_ENTRY_SYMBOL, sizeof(LU_LIVEUPDATE_ENTRY_SYMBOL) - 1};
    printf("ABI %u: %.*s, %s, %s, %s\n", LU_ABI_VERSION, (int)s.size, s.data, LU_UPDATER_ENTRY_SYMBOL,
           LU_HOST_LOCAL_CONTAINERS_ID, LU_RECORD_EXTENSION_ID);
    return liveupdate_entry == NULL && updater_entry == NULL && LU_OK == 0 ? 0 : 1;
}
