/* The parts of a test liveupdate plugin that do nothing, for the test plugins
 * that each differ from a working plugin in one or two functions: a plugin
 * lists these in its lu_liveupdate_api table next to the functions of its
 * own. The engine holds nothing; reconcile is refused (LU_ERR_STATE); a
 * snapshot is "{}" and any snapshot is restored. Messages are malloc'd and
 * freed by lu_test_inert_free_message. */
#ifndef LU_TEST_INERT_LIVEUPDATE_H
#define LU_TEST_INERT_LIVEUPDATE_H

#include "liveupdate/liveupdate_plugin.h"

/* A message holding a copy of text (empty when out of memory). */
lu_message lu_test_message(const char *text);

int32_t lu_test_inert_create(const lu_engine_host *host, lu_str options, lu_engine **out_engine, lu_message *out_error);
void lu_test_inert_destroy(lu_engine *engine);
/* Removes nothing: {"due": []}. */
int32_t lu_test_inert_remove(lu_engine *engine, lu_str kind, lu_str name, lu_message *out_result);
int32_t lu_test_inert_reconcile_begin(lu_engine *engine, lu_str name, lu_str now, lu_reconcile **out_session,
                                      lu_message *out_step);
int32_t lu_test_inert_reconcile_continue(lu_reconcile *session, lu_str outcome, lu_str now, lu_message *out_step);
void lu_test_inert_reconcile_end(lu_reconcile *session);
int32_t lu_test_inert_snapshot(lu_engine *engine, lu_message *out_blob);
int32_t lu_test_inert_restore(lu_engine *engine, lu_str blob, lu_message *out_error);
void lu_test_inert_free_message(lu_message *message);

#endif
