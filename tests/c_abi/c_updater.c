/* A tiny updater plugin written in C against the SDK headers: it reads the
 * whole archive, logs its size through the request's log (the host's for an
 * older request), restarts through the host's local-containers extension when
 * asked, and fails a run whose first word is "false". */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "liveupdate/ext/local_containers.h"
#include "liveupdate/updater_plugin.h"

struct lu_updater {
    lu_updater_host host;
};

static lu_message message_of(const char *text) {
    lu_message m;
    m.size = strlen(text);
    m.data = malloc(m.size + 1);
    if (m.data == NULL) {
        m.size = 0;
        return m;
    }
    memcpy(m.data, text, m.size + 1);
    return m;
}

static void say(const lu_updater *u, const lu_update_request *request, const char *line) {
    lu_str s = {line, strlen(line)};
    const size_t log_end = offsetof(lu_update_request, log_ctx) + sizeof request->log_ctx;
    if (request->struct_size >= log_end && request->log != NULL) {
        request->log(request->log_ctx, LU_LOG_INFO, s);
    } else {
        u->host.log(u->host.ctx, LU_LOG_INFO, s);
    }
}

static int32_t c_create(const lu_updater_host *host, lu_str config, lu_updater **out, lu_message *out_error) {
    lu_updater *u;
    (void)config;
    if (host == NULL || host->log == NULL) {
        *out_error = message_of("c-updater needs a host with a log callback");
        return LU_ERR_INVALID_ARGUMENT;
    }
    u = calloc(1, sizeof *u);
    if (u == NULL) return LU_ERR_INTERNAL;
    u->host = *host;
    *out = u;
    return LU_OK;
}

static void c_destroy(lu_updater *u) { free(u); }

static void c_free_message(lu_message *m) {
    free(m->data);
    m->data = NULL;
    m->size = 0;
}

static int32_t c_update(lu_updater *u, const lu_update_request *request, lu_update_outcome *out) {
    char buffer[4096];
    char line[256];
    long long total = 0;
    int64_t n;
    size_t i;
    while ((n = request->archive.read(request->archive.ctx, buffer, sizeof buffer)) > 0) total += n;
    out->exit_code = 0;
    if (n < 0) {
        out->kind = LU_OUTCOME_INFRA_FAILURE;
        out->message = message_of("the archive stream failed");
        return LU_OK;
    }
    snprintf(line, sizeof line, "c-updater: %lld archive bytes for %s", total, request->container->container_id);
    say(u, request, line);
    for (i = 0; i < request->run_count; ++i) {
        if (request->runs[i].argc > 0 && strcmp(request->runs[i].argv[0], "false") == 0) {
            out->kind = LU_OUTCOME_RUN_FAILURE;
            out->exit_code = 1;
            out->message = message_of("false failed");
            return LU_OK;
        }
    }
    if (request->restart) {
        const lu_host_local_containers *local =
            u->host.get_extension ? u->host.get_extension(u->host.ctx, LU_HOST_LOCAL_CONTAINERS_ID) : NULL;
        char reason[128] = "";
        if (local == NULL || local->restart(u->host.ctx, request->container, reason, sizeof reason) != 0) {
            out->kind = LU_OUTCOME_INFRA_FAILURE;
            out->message = message_of(local == NULL ? "no local-containers extension" : reason);
            return LU_OK;
        }
    }
    out->kind = LU_OUTCOME_OK;
    out->message = message_of("");
    return LU_OK;
}

static const lu_updater_api api = {sizeof(lu_updater_api), LU_ABI_VERSION, c_create, c_destroy, c_update,
                                   c_free_message,         NULL,           NULL};
static const lu_plugin_info info = {
    sizeof(lu_plugin_info), LU_ABI_VERSION, LU_ABI_VERSION, "updater", "c-updater", "0.0.1"};

LU_EXPORT const lu_updater_api *lu_updater_plugin_entry(uint32_t abi_version, const lu_plugin_info **out_info) {
    *out_info = &info;
    return abi_version == LU_ABI_VERSION ? &api : NULL;
}
