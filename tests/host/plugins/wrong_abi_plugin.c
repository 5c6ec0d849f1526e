/* A liveupdate plugin that serves only ABI 7..9: the host must refuse it. */
#include "liveupdate/liveupdate_plugin.h"

static const lu_plugin_info info = {sizeof(lu_plugin_info), 7u, 9u, "liveupdate", "future", "9.0.0"};

LU_EXPORT const lu_liveupdate_api *lu_liveupdate_plugin_entry(uint32_t abi_version, const lu_plugin_info **out_info) {
    (void)abi_version;
    *out_info = &info;
    return NULL;
}
