// Large snapshots (kIndexedFrom LiveUpdates and more) say where each of their
// liveUpdates lies and carry a checksum of that text, in a member readers
// before it ignore (still version 1: an older plugin reads the whole document):
//   {"format":"liveupdate.plugin.state","version":1,"startTime":T,
//    "liveUpdatesIndex":{"xxh3":"<16 hex digits>","bytes":N,"objects":[B,E],
//                        "liveUpdates":[["name",B,E],...]},
//    "objects":[...],"liveUpdates":[...],"liveUpdatesTail":[B,E]}
// Offsets count from the end of the index; the checksum covers the N bytes
// from there (objects and liveUpdates). A restore that finds the index intact
// decodes the objects at once and each LiveUpdate when first needed (hot
// reload then pauses reconciles for the objects only); one that does not (an
// older plugin's snapshot, a hand edit, a torn or corrupt text) reads the
// whole document as before, whose errors name the first bad entry.
#pragma once

#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "plugin/core/snapshot.hpp"
#include "plugin/core/snapshot_parts.hpp"

namespace liveupdate {

inline constexpr const char *kIndexKey = "liveUpdatesIndex";
// Below this many LiveUpdates the whole document decodes in about a millisecond.
inline constexpr std::size_t kIndexedFrom = 32;

// The liveUpdates of an indexed snapshot: their text, where each one lies,
// and the snapshot's objects, which their monitors share.
struct SnapshotEntries {
    std::string text;
    std::vector<std::string> names;
    std::vector<std::pair<std::size_t, std::size_t>> ranges;  // [begin, end) in text
    snapshot_parts::KnownObjects known;
};

std::string encode_indexed_snapshot(const common::MicroTime &start_time, const std::vector<api::ObjectPtr> &objects,
                                    const std::map<std::string, EntryToWrite> &entries, std::size_t size_hint);

// nullopt when text carries no index that matches it (checksum included).
// Throws common::DecodeError for a bad object of an intact snapshot.
std::optional<RestoredState> decode_indexed_snapshot(std::string_view text);

}  // namespace liveupdate
