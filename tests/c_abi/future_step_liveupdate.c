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
#include <string.h>

#include "liveupdate/liveupdate_plugin.h"

struct lu_engine {
    int unused;
};

struct lu_reconcile {
    int unused;
};

static lu_message message(const char *text) {
    lu_message m = {NULL, 0};
    size_t size = strlen(text);
    m.data = malloc(size + 1);
    if (m.data != NULL) {
        memcpy(m.data, text, size + 1);
        m.size = size;
    }
    return m;
}

static int32_t create(const lu_engine_host *host, lu_str options, lu_engine **out_engine, lu_message *out_error) {
    (void)host;
    (void)options;
    (void)out_error;
    *out_engine = calloc(1, sizeof(lu_engine));
    return *out_engine != NULL ? LU_OK : LU_ERR_INTERNAL;
}

static void destroy(lu_engine *engine) { free(engine); }

static int32_t validate(lu_engine *engine, lu_str object, lu_message *out_result) {
    (void)engine;
    (void)object;
    *out_result = message("the engine is being torn down");
    return LU_ERR_STATE;
}

static int32_t upsert(lu_engine *engine, lu_str object, lu_message *out_result) {
    (void)engine;
    (void)object;
    *out_result = message("not a document");
    return LU_ERR_INVALID_ARGUMENT;
}

static int32_t remove_object(lu_engine *engine, lu_str kind, lu_str name, lu_message *out_result) {
    (void)engine;
    (void)kind;
    (void)name;
    *out_result = message("{\"due\": []}");
    return LU_OK;
}

static int32_t reconcile_begin(lu_engine *engine, lu_str name, lu_str now, lu_reconcile **out_session,
                               lu_message *out_step) {
    (void)engine;
    (void)name;
    (void)now;
    *out_session = calloc(1, sizeof(lu_reconcile));
    *out_step = message("{\"stepVersion\": 3, \"type\": \"done\", \"status\": null, \"statusChanged\": false}");
    return *out_session != NULL ? LU_OK : LU_ERR_INTERNAL;
}

static int32_t reconcile_continue(lu_reconcile *session, lu_str outcome, lu_str now, lu_message *out_step) {
    (void)session;
    (void)outcome;
    (void)now;
    *out_step = message("no update is waiting for an outcome");
    return LU_ERR_STATE;
}

static void reconcile_end(lu_reconcile *session) { free(session); }

static int32_t snapshot(lu_engine *engine, lu_message *out_blob) {
    (void)engine;
    *out_blob = message("{}");
    return LU_OK;
}

static int32_t restore(lu_engine *engine, lu_str blob, lu_message *out_error) {
    (void)engine;
    (void)blob;
    (void)out_error;
    return LU_OK;
}

static void free_message(lu_message *m) {
    free(m->data);
    m->data = NULL;
    m->size = 0;
}

static const int kNotToBeRead = 1;

static const void *get_extension(lu_engine *engine, const char *id) {
    (void)engine;
    (void)id;
    return &kNotToBeRead;
}

static const lu_liveupdate_api api = {offsetof(lu_liveupdate_api, get_extension),
                                      LU_ABI_VERSION,
                                      create,
                                      destroy,
                                      validate,
                                      upsert,
                                      remove_object,
                                      reconcile_begin,
                                      reconcile_continue,
                                      reconcile_end,
                                      snapshot,
                                      restore,
                                      free_message,
                                      get_extension};
static const lu_plugin_info info = {sizeof(lu_plugin_info), LU_ABI_VERSION, LU_ABI_VERSION,
                                    "liveupdate",           "future-step",  "9.0.0"};

LU_EXPORT const lu_liveupdate_api *lu_liveupdate_plugin_entry(uint32_t abi_version, const lu_plugin_info **out_info) {
    *out_info = &info;
    return abi_version == LU_ABI_VERSION ? &api : NULL;
}
