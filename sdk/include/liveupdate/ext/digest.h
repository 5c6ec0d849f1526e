/* Updater extension "liveupdate.digest/1" [since 1.3]: what a container holds
 * under a path.
 *
 * Rules of this extension:
 *  - asked for with lu_updater_api.get_extension(updater, LU_DIGEST_EXTENSION_ID);
 *    NULL: the updater cannot digest containers;
 *  - the table only grows: check struct_size before reading a member;
 *  - entries are lent to the callback for the length of that call only;
 *  - hashes are XXH3-64 (xxHash, seed 0), so a host compares them with its own.
 */
#ifndef LIVEUPDATE_EXT_DIGEST_H
#define LIVEUPDATE_EXT_DIGEST_H

#include "liveupdate/abi.h"
#include "liveupdate/updater_plugin.h"

#ifdef __cplusplus
extern "C" {
#endif

#define LU_DIGEST_EXTENSION_ID "liveupdate.digest/1"

typedef enum lu_digest_kind {
    LU_DIGEST_FILE = 1,
    LU_DIGEST_DIR = 2,
    LU_DIGEST_SYMLINK = 3,
    LU_DIGEST_OTHER = 4 /* a device, FIFO or socket */
} lu_digest_kind;

typedef struct lu_digest_entry {
    uint32_t struct_size;
    lu_str path;   /* relative to the digested path, "/"-separated; empty: that path itself */
    int32_t kind;  /* lu_digest_kind */
    uint32_t mode; /* permission bits (07777) */
    uint64_t size; /* a file's length, a symlink's target length; 0 otherwise */
    uint64_t hash; /* XXH3-64 of a file's content or a symlink's target; 0 otherwise */
} lu_digest_entry;

/* [since 1.11] What a digest reads: only the files it names, within a budget. */
typedef struct lu_digest_scope {
    uint32_t struct_size;
    /* The files whose content is hashed, relative to container_path
     * ("/"-separated, as lu_digest_entry.path); every other file is given
     * with hash 0 (its kind, mode and size only). */
    const lu_str *hash_paths;
    uint64_t hash_path_count;
    /* Past either (0: no limit) the digest stops and returns LU_ERR_INTERNAL,
     * *out_error saying it is incomplete. */
    uint64_t max_bytes;  /* of content read */
    uint64_t max_millis; /* from the call */
    /* [since 1.12] Asked about every 100 ms while the digest runs, a large
     * file's read included; 0 stops the digest, which then returns
     * LU_ERR_STATE (the host is stopping). NULL: never asked. A plugin reads
     * these two only when struct_size covers them. */
    int32_t (*keep_going)(void *keep_going_ctx);
    void *keep_going_ctx;
} lu_digest_scope;

/* The size of a lu_digest_scope of revision 1.11, the smallest a plugin takes. */
#define LU_DIGEST_SCOPE_SIZE_1_11 (offsetof(lu_digest_scope, max_millis) + sizeof(uint64_t))

/* One entry; parents come before their children, siblings in byte order of
 * their names. Symlinks are reported, never followed. Returns 0 to go on;
 * anything else stops the digest, which then returns LU_ERR_STATE. */
typedef int32_t (*lu_digest_entry_fn)(void *each_ctx, const lu_digest_entry *entry);

typedef struct lu_digest_extension {
    uint32_t struct_size;

    /* Digests container_path (absolute, without "..") in the container.
     * [any-thread], concurrently with update() and other digests; calls for one container are served one at a time, in
     * turn with its updates, so a digest never sees half an update.
     * Returns, and leaves in *out_error (owned by the plugin: release it with
     * lu_updater_api.free_message; untouched when out_error is NULL):
     *  LU_OK                    every entry was given to each; *out_error untouched;
     *  LU_ERR_NOT_FOUND         nothing is at container_path; no entry given;
     *                           *out_error says where it looked;
     *  LU_ERR_UNSUPPORTED       this container cannot be digested (e.g. the
     *                           updater's agent cannot run in it); no entry
     *                           given; *out_error says why, for the user;
     *  LU_ERR_INVALID_ARGUMENT  a NULL pointer or an unusable path; *out_error says which;
     *  LU_ERR_STATE             each returned non-zero; *out_error untouched;
     *  LU_ERR_INTERNAL          failed part way (container gone, unreadable
     *                           path, ...): entries given so far are not the
     *                           whole tree; *out_error says what, where and why.
     * The digest's log lines (e.g. a new agent session) go to log(log_ctx,
     * level, line), [during-call] from any thread until digest returns; with
     * log NULL, to lu_updater_host.log. */
    int32_t (*digest)(lu_updater *updater, const lu_container_ref *container, lu_str container_path,
                      lu_digest_entry_fn each, void *each_ctx, lu_log_fn log, void *log_ctx, lu_message *out_error);

    /* How many times, since create, a connection to a container broke and the
     * updater opened a new one (e.g. the agent session of a restarted
     * container). Changes made meanwhile may be lost: a host that sees this
     * count grow verifies the containers. [any-thread] Never NULL. */
    uint64_t (*reconnect_count)(lu_updater *updater);

    /* [since 1.11] digest, reading only what scope names, within its budget.
     * No pseudo filesystem (procfs, sysfs, ...) below container_path is read
     * or descended into: its mount point is given as a folder. Same results
     * as digest. */
    int32_t (*digest_scoped)(lu_updater *updater, const lu_container_ref *container, lu_str container_path,
                             const lu_digest_scope *scope, lu_digest_entry_fn each, void *each_ctx, lu_log_fn log,
                             void *log_ctx, lu_message *out_error);

    /* [since 1.13] How many sessions with a container (e.g. lu-agent
     * sessions) the updater started since create, first ones and the
     * reconnects above alike; for the host's metrics. [any-thread] NULL: the
     * updater opens no sessions. */
    uint64_t (*session_count)(lu_updater *updater);
} lu_digest_extension;

#ifdef __cplusplus
}
#endif

#endif
