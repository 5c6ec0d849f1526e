/* A liveupdate plugin of the right ABI whose restore refuses every snapshot:
 * a hot reload to it must keep the old plugin in service. It admits nothing
 * and has nothing to reconcile; only create, snapshot and restore matter. */
#include <stdlib.h>
#include <string.h>

#include "liveupdate/liveupdate_plugin.h"

struct lu_engine {
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

static int32_t refuse_object(lu_engine *engine, lu_str object, lu_message *out_result) {
    (void)engine;
    (void)object;
    *out_result =
        message("{\"accepted\": false, \"errors\": [], \"message\": \"this plugin admits nothing\", \"due\": []}");
    return LU_OK;
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
    *out_session = NULL;
    *out_step = message("this plugin reconciles nothing");
    return LU_ERR_STATE;
}

static int32_t reconcile_continue(lu_reconcile *session, lu_str outcome, lu_str now, lu_message *out_step) {
    (void)session;
    (void)outcome;
    (void)now;
    (void)out_step;
    return LU_ERR_STATE;
}

static void reconcile_end(lu_reconcile *session) { (void)session; }

static int32_t snapshot(lu_engine *engine, lu_message *out_blob) {
    (void)engine;
    *out_blob = message("{}");
    return LU_OK;
}

static int32_t restore(lu_engine *engine, lu_str blob, lu_message *out_error) {
    (void)engine;
    (void)blob;
    *out_error = message("snapshot version not supported by this test plugin");
    return LU_ERR_UNSUPPORTED;
}

static void free_message(lu_message *m) {
    free(m->data);
    m->data = NULL;
    m->size = 0;
}

static const lu_liveupdate_api api = {
    sizeof(lu_liveupdate_api), LU_ABI_VERSION,     create,        destroy,  refuse_object, refuse_object, remove_object,
    reconcile_begin,           reconcile_continue, reconcile_end, snapshot, restore,       free_message,  NULL};

static const lu_plugin_info info = {sizeof(lu_plugin_info), LU_ABI_VERSION,  LU_ABI_VERSION,
                                    "liveupdate",           "restore-fails", "0.0.1"};

LU_EXPORT const lu_liveupdate_api *lu_liveupdate_plugin_entry(uint32_t abi_version, const lu_plugin_info **out_info) {
    *out_info = &info;
    return abi_version == LU_ABI_VERSION ? &api : NULL;
}
