/* A liveupdate plugin of the right ABI whose restore refuses every snapshot:
 * a hot reload to it must keep the old plugin in service. It admits nothing
 * and has nothing to reconcile; only create, snapshot and restore matter. */
#include "tests/support/inert_liveupdate/inert_liveupdate.h"

static int32_t refuse_object(lu_engine *engine, lu_str object, lu_message *out_result) {
    (void)engine;
    (void)object;
    *out_result = lu_test_message(
        "{\"accepted\": false, \"errors\": [], \"message\": \"this plugin admits nothing\", \"due\": []}");
    return LU_OK;
}

static int32_t restore(lu_engine *engine, lu_str blob, lu_message *out_error) {
    (void)engine;
    (void)blob;
    *out_error = lu_test_message("snapshot version not supported by this test plugin");
    return LU_ERR_UNSUPPORTED;
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
                                      restore,
                                      lu_test_inert_free_message,
                                      NULL};

static const lu_plugin_info info = {sizeof(lu_plugin_info), LU_ABI_VERSION,  LU_ABI_VERSION,
                                    "liveupdate",           "restore-fails", "0.0.1"};

LU_EXPORT const lu_liveupdate_api *lu_liveupdate_plugin_entry(uint32_t abi_version, const lu_plugin_info **out_info) {
    *out_info = &info;
    return abi_version == LU_ABI_VERSION ? &api : NULL;
}
