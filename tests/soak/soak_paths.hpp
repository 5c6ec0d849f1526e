// The fixed paths of the soak: where the source goes in the container, the
// folder no sync may write into, and the marker file of each check.
#pragma once

namespace lu_soak {

inline constexpr const char *kSyncTarget = "/app";

// A folder at the container's root: symlinks in the source point there, and a
// write that follows one lands in it. It must stay empty.
inline constexpr const char *kOutsideDir = "/soak-outside";

// Written last before each check; its arrival in the container shows that the
// daemon has taken in everything before it. Source operations leave it alone.
inline constexpr const char *kMarkerFile = "marker.txt";

// The folder sync back brings back (the rule's syncBack: ["gen"]): the app
// writes, rewrites and deletes files there and they must come back; source
// operations leave it alone, so a conflict there is a bug.
inline constexpr const char *kSyncBackDir = "gen";

// The app's sparse disk image in the sync target (an app path: never synced,
// never compared), made by the sparse-verify fault.
inline constexpr const char *kSparseAppFile = "uploads/disk.img";

}  // namespace lu_soak
