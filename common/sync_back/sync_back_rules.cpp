#include "common/sync_back/sync_back_rules.hpp"

namespace liveupdate::sync_back {

namespace {

using Kind = PathState::Kind;

Decision conflict(ConflictKind kind) { return {Action::conflict, kind}; }

// Both sides changed since they agreed, and differently.
ConflictKind conflict_kind(const PathState &local, const PathState &container) {
    if (local.kind == Kind::other || container.kind == Kind::other) return ConflictKind::not_a_regular_file;
    if (container.kind == Kind::absent) return ConflictKind::local_modified_container_deleted;
    if (local.kind == Kind::absent) return ConflictKind::local_deleted_container_modified;
    return ConflictKind::both_modified;
}

}  // namespace

bool holds_agreed(const Agreed &agreed, const PathState &side) {
    if (!agreed) return side.kind == Kind::absent;
    return side.kind == Kind::file && side.digest == *agreed;
}

bool forward_carries(const Agreed &agreed, const PathState &local, const PathState &container,
                     const ContainerRoot &root) {
    if (!deletes_allowed(root)) return true;
    return holds_agreed(agreed, container) && !holds_agreed(agreed, local);
}

bool deletes_allowed(const ContainerRoot &root) { return root.exists && !root.empty; }

Decision decide(const Agreed &agreed, const PathState &local, const PathState &container, bool allow_deletes) {
    // Something that is not a file on both sides is never compared nor agreed:
    // sync back neither reads through it nor writes over it.
    if (local.kind == Kind::other && container.kind == Kind::other) return {};
    if (local == container) return {Action::agree, ConflictKind::none};
    if (holds_agreed(agreed, container)) return {};  // a local change: the forward sync's business
    if (!holds_agreed(agreed, local)) return conflict(conflict_kind(local, container));
    // Only the container changed since the last agreement.
    switch (container.kind) {
    case Kind::file: return {Action::write_local, ConflictKind::none};
    case Kind::absent:
        return allow_deletes ? Decision{Action::delete_local, ConflictKind::none}
                             : Decision{Action::hold_deletes, ConflictKind::none};
    case Kind::other: return conflict(ConflictKind::not_a_regular_file);
    }
    return {};
}

bool is_echo(const Agreed &agreed, const PathState &local) {
    return agreed && local.kind == Kind::file && local.digest == *agreed;
}

std::string_view action_name(Action action) {
    switch (action) {
    case Action::nothing: return "nothing";
    case Action::write_local: return "write locally";
    case Action::delete_local: return "delete locally";
    case Action::agree: return "agree";
    case Action::conflict: return "conflict";
    case Action::hold_deletes: return "delete held back";
    }
    return "?";
}

std::string_view conflict_name(ConflictKind kind) {
    switch (kind) {
    case ConflictKind::none: return "none";
    case ConflictKind::both_modified: return "both sides modified";
    case ConflictKind::local_modified_container_deleted: return "modified locally, deleted in the container";
    case ConflictKind::local_deleted_container_modified: return "deleted locally, modified in the container";
    case ConflictKind::not_a_regular_file: return "not a regular file";
    }
    return "?";
}

}  // namespace liveupdate::sync_back
