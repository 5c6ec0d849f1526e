// What differs between a sync target's local tree and the container's copy
// of it, from the digests of both sides: the rule of `lu-host verify`. Pure:
// the digests come in, the lists go out.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "common/ignore_patterns.hpp"
#include "common/tree_digest/tree_digest.hpp"
#include "host/core/synced_journal.hpp"
#include "liveupdate/updater.hpp"

namespace liveupdate::host::verify {

struct Difference {
    std::string container_path;
    std::string local_path;  // where the content comes from ("" for an extra path)
    std::string why;         // different: what differs, for people
    std::optional<tree_digest::EntryKind> local_kind;
    std::optional<tree_digest::EntryKind> container_kind;
    // A kind change whose container side holds what liveupdate did not put
    // there: replacing it would delete those, so the repair leaves it.
    bool holds_unsynced = false;
    bool operator==(const Difference &) const = default;
};

struct Differences {
    std::vector<Difference> missing;    // here, not in the container
    std::vector<Difference> extra;      // in the container and the synced journal, not here (a folder: all it holds)
    std::vector<Difference> different;  // both, unlike
    // In the container, not here, and not synced by liveupdate (the app's
    // own files): told, left alone, not a difference.
    std::vector<Difference> unsynced;
    bool empty() const { return missing.empty() && extra.empty() && different.empty(); }
    std::size_t count() const { return missing.size() + extra.size() + different.size(); }
};

// Compares as the sync copies: files and symlinks by kind, size, content hash
// and executable bit (other permission bits follow the container's umask and
// user); folders only by existence, and an empty local folder is not missing
// (a sync never sends one alone). A path is left out on both sides when
// `ignore` matches its local path (the sources' ignores and the built-in
// ones, as the initial sync's filter), when its name is not valid UTF-8 (the
// sync skips those), or when it lies in one of other_targets (the container
// paths of other sync targets: they are compared on their own). synced: the
// container paths liveupdate put there (host/core/synced_journal.hpp); a path
// only in the container is extra when it is in it, unsynced when not, and a
// folder holding both is neither: what it holds is told one by one. Throws
// std::runtime_error when the container's digest names a path that is not
// beneath its root (tree_digest::entry_path_problem): nothing is compared.
Differences compare_target(const updater::CopyMapping &target, const tree_digest::Digest &local,
                           const tree_digest::Digest &container, const common::IgnoreSet &ignore,
                           const std::vector<std::string> &other_targets, const SyncedPaths &synced = {});

// What repairs the differences through an update: deletes (extra paths, and
// paths whose kind changes), then copies (missing and different files). The
// app's own files stay: unsynced paths, and kind changes that would take
// them along (with the copies beneath those), unless delete_extra
// (`lu-host verify --fix --delete-extra`).
struct Repair {
    std::vector<std::string> deletes;
    std::vector<updater::CopyMapping> copies;
    bool empty() const { return deletes.empty() && copies.empty(); }
};

Repair repair_of(const Differences &differences, bool delete_extra = false);

// The differences a repair left on purpose for sync back (docs/sync-back.md,
// "A whole forward sync"), moved out of differences: each at one of
// left_alone (container paths of files the container changed since both
// sides last agreed, or both still hold the agreed one), or a folder the
// repair did not delete because one of them lies beneath it. They come back,
// or are a conflict: not a difference the repair failed to mend.
std::vector<Difference> take_left_for_sync_back(Differences &differences, const SyncedPaths &left_alone);

}  // namespace liveupdate::host::verify
