/* Host extension "liveupdate.host.local-containers/1": the host supervises
 * the processes of LocalContainers, and the local updater asks it to restart
 * one or to describe how commands run in it.
 *
 * Found with lu_updater_host.get_extension(ctx, LU_HOST_LOCAL_CONTAINERS_ID);
 * every function takes that host ctx. The table grows at the end: read a
 * member only when struct_size covers it.
 */
#ifndef LIVEUPDATE_EXT_LOCAL_CONTAINERS_H
#define LIVEUPDATE_EXT_LOCAL_CONTAINERS_H

#include "liveupdate/updater_plugin.h"

#ifdef __cplusplus
extern "C" {
#endif

#define LU_HOST_LOCAL_CONTAINERS_ID "liveupdate.host.local-containers/1"

typedef struct lu_host_local_containers {
    uint32_t struct_size;
    /* Restart the container's process. [any-thread]
     * 0: restarted, error untouched. Non-zero: not restarted; error holds a
     * NUL-terminated reason (at most error_capacity bytes, cut to fit). */
    int32_t (*restart)(void *host_ctx, const lu_container_ref *container, char *error, size_t error_capacity);
    /* [since 1.1] The container's process
     * settings, which commands run in it take as `docker exec` takes a
     * container's. [any-thread]; each_env is called on the calling thread,
     * before process returns.
     * 0: each_env(each_ctx, name, value) was called once per variable the
     * container adds to the host's environment, and working_dir holds its
     * working directory (a container path, NUL-terminated, at most
     * working_dir_capacity bytes).
     * Non-zero: the host does not know the container (or the directory does
     * not fit); each_env was not called, working_dir is unspecified. */
    int32_t (*process)(void *host_ctx, const lu_container_ref *container,
                       void (*each_env)(void *each_ctx, const char *name, const char *value), void *each_ctx,
                       char *working_dir, size_t working_dir_capacity);
} lu_host_local_containers;

#ifdef __cplusplus
}
#endif

#endif
