/* Updater extension "liveupdate.sync_back/1": the changes in a container
 * path, as they happen, for sync back (docs/sync-back.md).
 *
 * Rules of this extension:
 *  - asked for with lu_updater_api.get_extension(updater, LU_SYNC_BACK_EXTENSION_ID);
 *    NULL: the updater's containers are one-way;
 *  - the table only grows: check struct_size before reading a member;
 *  - changes are lent to the callback for the length of that call only;
 *  - hashes are XXH3-64 (xxHash, seed 0), as liveupdate.digest/1's;
 *  - paths and contents are the container's, unchecked: the host judges them.
 */
#ifndef LIVEUPDATE_EXT_SYNC_BACK_H
#define LIVEUPDATE_EXT_SYNC_BACK_H

#include "liveupdate/abi.h"
#include "liveupdate/updater_plugin.h"

#ifdef __cplusplus
extern "C" {
#endif

#define LU_SYNC_BACK_EXTENSION_ID "liveupdate.sync_back/1"

typedef enum lu_change_kind {
    LU_CHANGE_WRITTEN = 1, /* a regular file, with its mode, size and (has_content) content and hash */
    LU_CHANGE_DELETED = 2,
    LU_CHANGE_SYMLINK = 3, /* never followed */
    LU_CHANGE_OTHER = 4,   /* a FIFO, socket or device */
    LU_CHANGE_RESCAN = 5   /* path empty: events were lost; the files come again as they are */
} lu_change_kind;

/* The watched root when a batch holds a delete (else UNKNOWN). */
typedef enum lu_watched_root {
    LU_ROOT_UNKNOWN = 0,
    LU_ROOT_MISSING = 1,
    LU_ROOT_EMPTY = 2,
    LU_ROOT_HOLDS = 3 /* something is beneath it */
} lu_watched_root;

typedef struct lu_container_change {
    uint32_t struct_size;
    lu_str path;   /* relative to the watched root, "/"-separated */
    int32_t kind;  /* lu_change_kind */
    uint32_t mode; /* permission bits */
    uint64_t size;
    uint64_t hash;       /* has_content: XXH3-64 of content */
    int32_t has_content; /* 0: content did not come (note says why: too large, unreadable) */
    lu_str content;
    lu_str note;
} lu_container_change;

typedef struct lu_container_changes {
    uint32_t struct_size;
    const lu_container_change *changes; /* oldest first */
    uint64_t count;
    int32_t root; /* lu_watched_root */
    /* Non-zero: the watch ended (its container stopped, the session broke):
     * why says so, count is 0, and no call follows. */
    int32_t ended;
    lu_str why;
} lu_container_changes;

/* [watch-thread] One batch of changes; never called after stop returned. */
typedef void (*lu_container_changes_fn)(void *each_ctx, const lu_container_changes *changes);

typedef struct lu_change_watch lu_change_watch;

/* A file the host and the container last agreed on (watch_from). [since 1.14] */
typedef struct lu_agreed_file {
    uint32_t struct_size;
    lu_str path;   /* relative to the watched root */
    uint64_t hash; /* XXH3-64 of the content both sides held */
} lu_agreed_file;

typedef struct lu_sync_back_extension {
    uint32_t struct_size;

    /* Watches root (absolute, without "..") in the container: the files
     * beneath it whose names (relative to root) the patterns match (the
     * ignore syntax; "!" excepts, the last match wins) are given to each as
     * they change, from a thread of the plugin's, until stop. A file past
     * max_file_bytes comes without its content.
     * [any-thread]. Returns, and leaves in *out_error (owned by the plugin:
     * release it with lu_updater_api.free_message; untouched when NULL):
     *  LU_OK                    watching: *out_watch set, *out_error untouched;
     *  LU_ERR_UNSUPPORTED       this container cannot be watched (the agent
     *                           cannot run in it, or is too old): one-way;
     *                           *out_error says why, for the user;
     *  LU_ERR_INVALID_ARGUMENT  a NULL pointer or an unusable path or pattern;
     *  LU_ERR_INTERNAL          the container is gone, the session broke...
     * Its log lines go to log(log_ctx, level, line), from any thread until
     * stop returns. */
    int32_t (*watch)(lu_updater *updater, const lu_container_ref *container, lu_str root, const lu_str *patterns,
                     uint64_t pattern_count, uint64_t max_file_bytes, lu_container_changes_fn each, void *each_ctx,
                     lu_log_fn log, void *log_ctx, lu_change_watch **out_watch, lu_message *out_error);

    /* Ends a watch; each and log are not called once it returns. [any-thread],
     * never from within each. */
    void (*stop)(lu_updater *updater, lu_change_watch *watch);

    /* As watch, but from what the host last agreed on with the container,
     * so nothing that happened while no watch ran is missed: the first
     * batches bring each wanted file beneath root whose content is not the
     * agreed one (or that is not among agreed) and each agreed file gone
     * (deleted); then changes as they happen. [since 1.14] */
    int32_t (*watch_from)(lu_updater *updater, const lu_container_ref *container, lu_str root, const lu_str *patterns,
                          uint64_t pattern_count, uint64_t max_file_bytes, const lu_agreed_file *agreed,
                          uint64_t agreed_count, lu_container_changes_fn each, void *each_ctx, lu_log_fn log,
                          void *log_ctx, lu_change_watch **out_watch, lu_message *out_error);
} lu_sync_back_extension;

#ifdef __cplusplus
}
#endif

#endif
