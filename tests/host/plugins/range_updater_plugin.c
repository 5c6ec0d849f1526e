/* An updater that serves ABI 1..5, with a table for each version that says
 * which it is: the host must pick the highest version it serves too. Its
 * functions refuse every call; only loading is tested. */
#include "liveupdate/updater_plugin.h"

static const lu_plugin_info info = {sizeof(lu_plugin_info), 1u, 5u, "updater", "range", "5.0.0"};

static int32_t refuse_create(const lu_updater_host *host, lu_str config_json, lu_updater **out_updater,
                             lu_message *out_error) {
    (void)host;
    (void)config_json;
    (void)out_error;
    *out_updater = NULL;
    return LU_ERR_INTERNAL;
}

static void ignore_destroy(lu_updater *updater) { (void)updater; }

static int32_t refuse_update(lu_updater *updater, const lu_update_request *request, lu_update_outcome *out_outcome) {
    (void)updater;
    (void)request;
    (void)out_outcome;
    return LU_ERR_INVALID_ARGUMENT;
}

static void ignore_free(lu_message *message) { (void)message; }

#define RANGE_TABLE(version) \
    { sizeof(lu_updater_api), version, refuse_create, ignore_destroy, refuse_update, ignore_free, NULL, NULL }

static const lu_updater_api tables[] = {RANGE_TABLE(1u), RANGE_TABLE(2u), RANGE_TABLE(3u), RANGE_TABLE(4u),
                                        RANGE_TABLE(5u)};

LU_EXPORT const lu_updater_api *lu_updater_plugin_entry(uint32_t abi_version, const lu_plugin_info **out_info) {
    *out_info = &info;
    if (abi_version < info.abi_min || abi_version > info.abi_max) return NULL;
    return &tables[abi_version - 1u];
}
