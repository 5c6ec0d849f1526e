/* A liveupdate plugin that answers as a newer or broken plugin would, so the
 * host's checks of liveupdate_plugin.h's contract can be seen to refuse it:
 *  - its steps are of stepVersion 3 (a shape this host does not read);
 *  - validate fails with LU_ERR_STATE and error text (neither admitted nor
 *    rejected); upsert returns LU_ERR_INVALID_ARGUMENT without an admission
 *    document (a breach);
 *  - its table is of the size before get_extension, though the member is set:
 *    a host must not read past struct_size. */
#include <stddef.h>
#include <stdlib.h>

#include "tests/support/inert_liveupdate/inert_liveupdate.h"

struct lu_reconcile {
    int unused;
};

static int32_t validate(lu_engine *engine, lu_str object, lu_message *out_result) {
    (void)engine;
    (void)object;
    *out_result = lu_test_message("the engine is being torn down");
    return LU_ERR_STATE;
}

static int32_t upsert(lu_engine *engine, lu_str object, lu_message *out_result) {
    (void)engine;
    (void)object;
    *out_result = lu_test_message("not a document");
    return LU_ERR_INVALID_ARGUMENT;
}

static int32_t reconcile_begin(lu_engine *engine, lu_str name, lu_str now, lu_reconcile **out_session,
                               lu_message *out_step) {
    (void)engine;
    (void)name;
    (void)now;
    *out_session = calloc(1, sizeof(lu_reconcile));
    *out_step = lu_test_message("{\"stepVersion\": 3, \"type\": \"done\", \"status\": null, \"statusChanged\": false}");
    return *out_session != NULL ? LU_OK : LU_ERR_INTERNAL;
}

static void reconcile_end(lu_reconcile *session) { free(session); }

static const int kNotToBeRead = 1;

static const void *get_extension(lu_engine *engine, const char *id) {
    (void)engine;
    (void)id;
    return &kNotToBeRead;
}

static const lu_liveupdate_api api = {offsetof(lu_liveupdate_api, get_extension),
                                      LU_ABI_VERSION,
                                      lu_test_inert_create,
                                      lu_test_inert_destroy,
                                      validate,
                                      upsert,
                                      lu_test_inert_remove,
                                      reconcile_begin,
                                      lu_test_inert_reconcile_continue,
                                      reconcile_end,
                                      lu_test_inert_snapshot,
                                      lu_test_inert_restore,
                                      lu_test_inert_free_message,
                                      get_extension};
static const lu_plugin_info info = {sizeof(lu_plugin_info), LU_ABI_VERSION, LU_ABI_VERSION,
                                    "liveupdate",           "future-step",  "9.0.0"};

LU_EXPORT const lu_liveupdate_api *lu_liveupdate_plugin_entry(uint32_t abi_version, const lu_plugin_info **out_info) {
    *out_info = &info;
    return abi_version == LU_ABI_VERSION ? &api : NULL;
}
