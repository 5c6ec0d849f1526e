/* A liveupdate plugin of the right ABI that admits nothing, with a message of
 * its own: once the webhook hot-reloads it, the next review says so. It
 * takes any snapshot and has nothing to reconcile. */
#include "tests/support/inert_liveupdate/inert_liveupdate.h"

static int32_t refuse_object(lu_engine *engine, lu_str object, lu_message *out_result) {
    (void)engine;
    (void)object;
    *out_result = lu_test_message(
        "{\"accepted\": false, \"errors\": [], \"message\": \"the admits-nothing test plugin admits nothing\", "
        "\"due\": []}");
    return LU_OK;
}

static const lu_liveupdate_api api = {sizeof(lu_liveupdate_api),
                                      LU_ABI_VERSION,
                                      lu_test_inert_create,
                                      lu_test_inert_destroy,
                                      refuse_object,
                                      refuse_object,
                                      lu_test_inert_remove,
                                      lu_test_inert_reconcile_begin,
                                      lu_test_inert_reconcile_continue,
                                      lu_test_inert_reconcile_end,
                                      lu_test_inert_snapshot,
                                      lu_test_inert_restore,
                                      lu_test_inert_free_message,
                                      NULL};

static const lu_plugin_info info = {sizeof(lu_plugin_info), LU_ABI_VERSION,   LU_ABI_VERSION,
                                    "liveupdate",           "admits-nothing", "0.0.1"};

LU_EXPORT const lu_liveupdate_api *lu_liveupdate_plugin_entry(uint32_t abi_version, const lu_plugin_info **out_info) {
    *out_info = &info;
    return abi_version == LU_ABI_VERSION ? &api : NULL;
}
