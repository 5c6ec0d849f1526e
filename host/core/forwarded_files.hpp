// Sync back's side of one forward update (docs/sync-back.md): each file it
// carries that comes back is the forward sync's in the container from before
// its first byte leaves until the update ends, and its digest is agreed on
// before its last byte leaves ("No echo"). And the update's forward guard
// (lu_update_request.expected/kept, "Forward writes over a container
// change"): what each path it writes or deletes may replace, which is the
// agreement as it was before this update, and the return to that agreement
// for a path the container kept.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "common/mutex.hpp"
#include "host/core/archive_builder.hpp"
#include "host/core/log.hpp"
#include "host/core/synced_journal.hpp"
#include "liveupdate/updater.hpp"

namespace liveupdate::host {

// Whether a container file of an update comes back (a sync rule's syncBack,
// docs/sync-back.md).
using ComesBackFn = std::function<bool(const std::string &container_file)>;

class ForwardedFiles {
public:
    // journal or comes_back empty: the update has no sync back, nothing is done.
    // log: the update's log (thread-safe), which outlives this.
    ForwardedFiles(std::shared_ptr<SyncedJournal> journal, ComesBackFn comes_back, const LogSinkFn &log);
    ForwardedFiles(const ForwardedFiles &) = delete;
    ForwardedFiles &operator=(const ForwardedFiles &) = delete;
    // The forwarding of each carried path ends (the update ended).
    ~ForwardedFiles();

    bool active() const { return journal_ && comes_back_; }

    // Before the update: the agreements of the paths it deletes, as they are.
    void before_deletes(const std::vector<std::string> &delete_paths);
    // Adds its hooks to those of the archive (run on the archive's writer thread).
    void hook(EntryHooks &hooks);

    // What may be at container_path before the update replaces or deletes
    // it: the agreement from before the update for a file that comes back,
    // nothing for one none was agreed on, anything for another path (and a
    // delete of a folder the forward sync carried or files came back into,
    // whose files sync back's held deletes judge). Thread-safe.
    updater::ExpectedContent expected(std::string_view container_path);
    // The container kept its file at container_path: the agreement returns
    // to what it was before the update, the digest carried there is no late
    // look at ours, and the update's log says so at warn. Thread-safe.
    void kept(std::string_view container_path, std::string_view why);
    // The paths the container kept, once the update ended.
    std::set<std::string> kept_paths() const;
    // After the update's deletes left the journal: a kept path among or
    // beneath them is back in it, with its agreement from before.
    void restore_kept_deletes(const std::vector<std::string> &noted_deletes);

    // The C callbacks of lu_update_request (guard_ctx: this).
    static int32_t expected_fn(void *guard_ctx, lu_str container_path, uint64_t *out_digest);
    static void kept_fn(void *guard_ctx, lu_str container_path, lu_str why);

private:
    // What the update found at a path before it touched it.
    struct Before {
        std::optional<std::string> agreed;
        bool folder = false;  // the journal holds paths beneath it
    };
    // The path's agreement before the update, looked at once (first look wins).
    const Before &before(const std::string &path) LU_REQUIRES(mutex_);
    void restore(const std::string &path) LU_REQUIRES(mutex_);
    // On the archive's writer thread: the path's forwarding begins, once per update.
    void begin(const std::string &path);

    std::shared_ptr<SyncedJournal> journal_;
    ComesBackFn comes_back_;
    const LogSinkFn &log_;
    mutable common::Mutex mutex_;
    std::map<std::string, Before> before_ LU_GUARDED_BY(mutex_);
    std::map<std::string, std::vector<std::string>> carried_ LU_GUARDED_BY(mutex_);  // path → digests carried
    std::set<std::string> begun_ LU_GUARDED_BY(mutex_);                              // forwarding, until this ends
    std::set<std::string> kept_ LU_GUARDED_BY(mutex_);
};

}  // namespace liveupdate::host
