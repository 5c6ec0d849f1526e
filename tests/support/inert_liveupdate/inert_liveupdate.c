#include "tests/support/inert_liveupdate/inert_liveupdate.h"

#include <stdlib.h>
#include <string.h>

struct lu_engine {
    int unused;
};

lu_message lu_test_message(const char *text) {
    lu_message m = {NULL, 0};
    size_t size = strlen(text);
    m.data = malloc(size + 1);
    if (m.data != NULL) {
        memcpy(m.data, text, size + 1);
        m.size = size;
    }
    return m;
}

int32_t lu_test_inert_create(const lu_engine_host *host, lu_str options, lu_engine **out_engine,
                             lu_message *out_error) {
    (void)host;
    (void)options;
    (void)out_error;
    *out_engine = calloc(1, sizeof(lu_engine));
    return *out_engine != NULL ? LU_OK : LU_ERR_INTERNAL;
}

void lu_test_inert_destroy(lu_engine *engine) { free(engine); }

int32_t lu_test_inert_remove(lu_engine *engine, lu_str kind, lu_str name, lu_message *out_result) {
    (void)engine;
    (void)kind;
    (void)name;
    *out_result = lu_test_message("{\"due\": []}");
    return LU_OK;
}

int32_t lu_test_inert_reconcile_begin(lu_engine *engine, lu_str name, lu_str now, lu_reconcile **out_session,
                                      lu_message *out_step) {
    (void)engine;
    (void)name;
    (void)now;
    *out_session = NULL;
    *out_step = lu_test_message("this plugin reconciles nothing");
    return LU_ERR_STATE;
}

int32_t lu_test_inert_reconcile_continue(lu_reconcile *session, lu_str outcome, lu_str now, lu_message *out_step) {
    (void)session;
    (void)outcome;
    (void)now;
    *out_step = lu_test_message("no update is waiting for an outcome");
    return LU_ERR_STATE;
}

void lu_test_inert_reconcile_end(lu_reconcile *session) { (void)session; }

int32_t lu_test_inert_snapshot(lu_engine *engine, lu_message *out_blob) {
    (void)engine;
    *out_blob = lu_test_message("{}");
    return LU_OK;
}

int32_t lu_test_inert_restore(lu_engine *engine, lu_str blob, lu_message *out_error) {
    (void)engine;
    (void)blob;
    (void)out_error;
    return LU_OK;
}

void lu_test_inert_free_message(lu_message *message) {
    free(message->data);
    message->data = NULL;
    message->size = 0;
}
