/* An updater plugin of a future ABI (2..3): loading or reloading it must be refused. */
#include "liveupdate/updater_plugin.h"

static const lu_plugin_info info = {sizeof(lu_plugin_info), 2u, 3u, "updater", "local-next", "2.0.0"};

LU_EXPORT const lu_updater_api *lu_updater_plugin_entry(uint32_t abi_version, const lu_plugin_info **out_info) {
    (void)abi_version;
    *out_info = &info;
    return NULL;
}
