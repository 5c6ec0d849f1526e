// H01: the engine's whole state as versioned JSON for hot reload. A snapshot
// of another format or version is refused with a clear error. A large one
// carries an index of its liveUpdates (snapshot_index.hpp): restoring it
// decodes the objects at once and each LiveUpdate when first needed.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include <boost/json.hpp>

#include "plugin/core/api/api_object.hpp"
#include "plugin/core/monitor.hpp"

namespace liveupdate {

inline constexpr const char *kSnapshotFormat = "liveupdate.plugin.state";
inline constexpr std::int64_t kSnapshotVersion = 1;
// The last member of a large snapshot: [begin, end) of the liveUpdates its
// writer's second thread wrote. Optional: version 1 without it is the same state.
inline constexpr const char *kTailKey = "liveUpdatesTail";

class UnsupportedSnapshot : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

struct DecodedEntry {
    std::optional<Monitor> monitor;
    std::optional<api::LiveUpdateStatus> status;
};

struct EngineState {
    common::MicroTime start_time;
    std::vector<api::ObjectPtr> objects;
    std::map<std::string, DecodedEntry> live_updates;
};

struct EntryToWrite {
    const Monitor *monitor;               // null: none yet
    const api::LiveUpdateStatus *status;  // null: none yet
    // Non-empty: the entry as a snapshot wrote it, still pending since a
    // restore; written again as it is (monitor and status are then unused).
    std::string_view written = {};
};

// The entry of a LiveUpdate that a restore left to decode later: the text it
// shares with the other entries of its snapshot, and its index there.
struct SnapshotEntries;
struct PendingEntry {
    std::shared_ptr<const SnapshotEntries> entries;
    std::size_t index = 0;
};

struct RestoredState {
    EngineState state;                            // the LiveUpdates decoded already
    std::map<std::string, PendingEntry> pending;  // the others
};

// size_hint: the expected size (the last snapshot's), reserved up front.
std::string encode_snapshot(const common::MicroTime &start_time, const std::vector<api::ObjectPtr> &objects,
                            const std::map<std::string, EntryToWrite> &entries, std::size_t size_hint = 0);
// The element of "liveUpdates" encode_snapshot writes for that LiveUpdate.
std::string snapshot_entry(const std::string &name, const EntryToWrite &entry);
// Throws UnsupportedSnapshot (format/version) or common::DecodeError (content).
EngineState decode_snapshot(std::string_view text);
// The same, leaving the liveUpdates of an indexed snapshot pending: what
// restore needs before it returns. Throws as decode_snapshot.
RestoredState decode_snapshot_for_restore(std::string_view text);
// Throws common::DecodeError naming liveUpdates[index].
DecodedEntry decode_pending(const PendingEntry &pending);
const std::string &pending_name(const PendingEntry &pending);
// Its entry's text, as the snapshot holds it.
std::string_view pending_text(const PendingEntry &pending);

}  // namespace liveupdate
