/* A liveupdate plugin of a future ABI (2..3): a hot reload to it must be refused. */
#include "liveupdate/liveupdate_plugin.h"

static const lu_plugin_info info = {sizeof(lu_plugin_info), 2u, 3u, "liveupdate", "liveupdate-next", "2.0.0"};

LU_EXPORT const lu_liveupdate_api *lu_liveupdate_plugin_entry(uint32_t abi_version, const lu_plugin_info **out_info) {
    (void)abi_version; /* the host speaks ABI 1 only: this plugin has no table for it */
    *out_info = &info;
    return NULL;
}
