// Sync back: what a change in the container means for the developer's copy of
// one path (docs/sync-back.md). Pure rules over value types; the watchers and
// the writes are elsewhere. Mutagen's "two-way-safe" idea, made stricter: a
// side's change is taken only when the other side has not changed since the
// two last agreed, and nothing is ever overwritten or deleted to settle a
// disagreement: that is a conflict, reported, until someone edits a side.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace liveupdate::sync_back {

// One side's copy of a path: absent, a regular file with its content digest,
// or something else there (a folder, a symlink, a FIFO...), which sync back
// never reads through nor writes over.
struct PathState {
    enum class Kind { absent, file, other };
    Kind kind = Kind::absent;
    std::string digest;  // kind == file: the content's digest (with its mode bits, as the caller defines it)

    static PathState absent_path() { return {}; }
    static PathState file(std::string digest) { return {Kind::file, std::move(digest)}; }
    static PathState other() { return {Kind::other, {}}; }
    bool operator==(const PathState &) const = default;
};

// What both sides last agreed the path holds: nullopt when they never agreed
// (the path is new to both), else the file's digest ("" can never be a digest;
// an agreed absence is simply no agreement).
using Agreed = std::optional<std::string>;

enum class ConflictKind {
    none,
    both_modified,  // each side has a different file than agreed, and they differ
    local_modified_container_deleted,
    local_deleted_container_modified,
    not_a_regular_file,  // either side holds a folder, symlink or special file where the other has a file
};

enum class Action {
    nothing,       // no container change to take
    write_local,   // the container's file replaces the local one (the local one is as agreed, or absent)
    delete_local,  // the container deleted a file both had agreed on; the local copy is as agreed
    agree,         // both sides hold the same now: record it as agreed (or drop the agreement: both absent)
    conflict,      // both changed, differently: nothing is written on either side
    hold_deletes,  // a delete, held back by the mass-deletion rule: nothing is written
};

struct Decision {
    Action action = Action::nothing;
    ConflictKind conflict = ConflictKind::none;
    bool operator==(const Decision &) const = default;
};

// Never a mass deletion: a container whose sync root is gone or empty (a
// restart from the image, a recreated container) deletes nothing locally.
struct ContainerRoot {
    bool exists = false;
    bool empty = true;
};
bool deletes_allowed(const ContainerRoot &root);

// What a container change to one path asks of the local side.
Decision decide(const Agreed &agreed, const PathState &local, const PathState &container, bool allow_deletes);

// A forward sync that sets the container to the local tree (an initial sync,
// a verify's repair) carries a file that comes back only when the local side
// changed it since the two agreed and the container did not: a container
// change comes back, or is a conflict (decide()), and a file both still hold
// as agreed needs nothing. A container whose sync root is gone or empty gets
// everything (never a mass deletion). The same for a delete (local absent).
bool forward_carries(const Agreed &agreed, const PathState &local, const PathState &container,
                     const ContainerRoot &root);
// Whether the side holds what both last agreed on (no agreement: nothing there).
bool holds_agreed(const Agreed &agreed, const PathState &side);

// No echo: a local change the forward watcher sees is the file that just came
// back (it equals what both sides agreed), so it is not sent forward again.
bool is_echo(const Agreed &agreed, const PathState &local);

std::string_view action_name(Action action);
std::string_view conflict_name(ConflictKind kind);

}  // namespace liveupdate::sync_back
